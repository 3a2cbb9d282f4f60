/**
 * Remote schemas: the list, add / modify (URL or its environment variable,
 * headers, forwarding of client headers, timeout, root-field namespace and
 * type-name prefix and suffix; `add_remote_schema` / `update_remote_schema`,
 * keeping the customization the form does not edit), reload, remove; per
 * remote its schema as Engine shows it (`introspect_remote_schema`, printed
 * as SDL) and its role permissions as SDL (`add_remote_schema_permissions`,
 * `drop_remote_schema_permissions`, replaced in one `bulk`).
 */
import { useState } from 'react';
import { useMetadata } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { NavList, Tabs } from '../../lists.tsx';
import { RemoteEditor } from './RemoteEditor.tsx';
import { RemotePermissions } from './RemotePermissions.tsx';
import { RemoteSchemaView } from './RemoteSchemaView.tsx';

function link(params: Record<string, string>): string {
  return `#/remote?${new URLSearchParams(params).toString()}`;
}

export function RemoteSchemas({ params }: { params: URLSearchParams }) {
  const { metadata, inconsistencies } = useMetadata();
  const remotes = [...(metadata?.remote_schemas ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const name = params.get('remote');
  const tab = params.get('tab') ?? 'modify';
  const found = remotes.find((r) => r.name === name);
  const [notice, setNotice] = useState<{ at: string; text: string } | null>(null);
  const here = `${name ?? ''}:${tab}`;
  const done = (to: Record<string, string>, text: string) => {
    setNotice({ at: `${to['remote'] ?? ''}:${to['tab'] ?? 'modify'}`, text });
    navigate('remote', to);
  };
  return (
    <div className="split">
      <nav className="sidebar" aria-label="Remote schemas navigation">
        <NavList items={[{ key: 'Add remote schema', href: link({}), current: name === null }]} />
        <h2>Remote schemas</h2>
        <NavList
          label="Remote schemas"
          empty="No remote schemas."
          items={remotes.map((r) => ({
            key: r.name,
            href: link({ remote: r.name }),
            current: name === r.name,
            problems: inconsistencies.filter((p) => p.type === 'remote_schema' && p.name === r.name),
          }))}
        />
      </nav>
      <div className="content">
        {metadata === null ? null : name === null ? (
          <RemoteEditor key="(new)" entry={null} notice={notice?.at === here ? notice.text : null} onDone={done} />
        ) : found === undefined ? (
          <p role="alert" className="error">
            There is no remote schema {name}.
          </p>
        ) : (
          <>
            <h1>Remote schema {found.name}</h1>
            <Tabs
              label="Remote schema views"
              tabs={[
                ['modify', 'Modify'],
                ['schema', 'Schema'],
                ['permissions', 'Permissions'],
              ]}
              current={tab}
              href={(id) => link({ remote: found.name, tab: id })}
            />
            {tab === 'modify' && <RemoteEditor key={found.name} entry={found} notice={notice?.at === here ? notice.text : null} onDone={done} />}
            {tab === 'schema' && <RemoteSchemaView key={found.name} name={found.name} />}
            {tab === 'permissions' && <RemotePermissions key={found.name} entry={found} />}
          </>
        )}
      </div>
    </div>
  );
}
