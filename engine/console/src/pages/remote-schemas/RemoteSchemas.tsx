/**
 * Remote schemas: the list, add / modify (URL or its environment variable,
 * headers, forwarding of client headers, timeout, root-field namespace and
 * type-name prefix and suffix; `add_remote_schema` / `update_remote_schema`,
 * keeping the customization the form does not edit), reload, remove; per
 * remote its schema as Engine shows it (`introspect_remote_schema`, printed
 * as SDL) and its role permissions as SDL (`add_remote_schema_permissions`,
 * `drop_remote_schema_permissions`, replaced in one `bulk`).
 */
import { buildClientSchema, printSchema, type IntrospectionQuery } from 'graphql';
import { useEffect, useState } from 'react';
import { metadata as callMetadata, messageOf } from '../../api.ts';
import { HeadersEditor, Status, headerConfs, headerRows, useAction, wholeNumber, type HeaderRow } from '../../components.tsx';
import { knownRoles, useMetadata, type RemoteSchemaEntry } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { EditorButtons, NavList, NewRoleForm, Tabs } from '../../lists.tsx';

function link(params: Record<string, string>): string {
  return `#/remote?${new URLSearchParams(params).toString()}`;
}

/** The remote's schema as Engine serves it (customized), as SDL. */
async function remoteSdl(name: string): Promise<string> {
  const r = await callMetadata<{ data: IntrospectionQuery }>('introspect_remote_schema', { name });
  return printSchema(buildClientSchema(r.data));
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

function RemoteEditor({
  entry,
  notice,
  onDone,
}: {
  entry: RemoteSchemaEntry | null;
  notice: string | null;
  onDone: (to: Record<string, string>, text: string) => void;
}) {
  const { refresh } = useMetadata();
  const d = entry?.definition;
  const [name, setName] = useState(entry?.name ?? '');
  const [fromEnv, setFromEnv] = useState(d?.url_from_env !== undefined);
  const [url, setUrl] = useState(d?.url_from_env ?? d?.url ?? '');
  const [headers, setHeaders] = useState<HeaderRow[]>(headerRows(d?.headers));
  const [forward, setForward] = useState(d?.forward_client_headers ?? false);
  const [timeout, setTimeoutText] = useState(String(d?.timeout_seconds ?? 60));
  const [namespace, setNamespace] = useState(d?.customization?.root_fields_namespace ?? '');
  const [prefix, setPrefix] = useState(d?.customization?.type_names?.prefix ?? '');
  const [suffix, setSuffix] = useState(d?.customization?.type_names?.suffix ?? '');
  const [comment, setComment] = useState(entry?.comment ?? '');
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [status, run] = useAction();
  const save = () =>
    void run('Saving…', '', async () => {
      const n = name.trim();
      if (n === '') throw new Error('The remote schema needs a name');
      if (url.trim() === '') throw new Error(fromEnv ? 'Name the environment variable with the URL' : 'The URL is required');
      const seconds = wholeNumber(timeout, 'The timeout (seconds)', 1);
      // The form edits the namespace, prefix and suffix; type mappings and field renames are kept.
      const before = d?.customization ?? {};
      const typeNames = { ...(before.type_names ?? {}), prefix: prefix.trim() || undefined, suffix: suffix.trim() || undefined };
      const customization = {
        ...before,
        root_fields_namespace: namespace.trim() || undefined,
        type_names: typeNames.prefix !== undefined || typeNames.suffix !== undefined || typeNames.mapping !== undefined ? typeNames : undefined,
      };
      const definition = {
        ...(fromEnv ? { url_from_env: url.trim() } : { url: url.trim() }),
        headers: headerConfs(headers),
        forward_client_headers: forward,
        timeout_seconds: seconds,
        // JSON drops the undefined members.
        ...(JSON.stringify(customization) !== '{}' ? { customization: JSON.parse(JSON.stringify(customization)) as unknown } : {}),
      };
      await callMetadata(entry === null ? 'add_remote_schema' : 'update_remote_schema', {
        name: n,
        definition,
        ...(comment.trim() !== '' ? { comment: comment.trim() } : entry !== null ? { comment: null } : {}),
      });
      await refresh();
      onDone({ remote: n }, `Saved remote schema ${n}`);
    });
  const quiet = status.kind === 'idle' || (status.kind === 'ok' && status.text === '');
  return (
    <form
      aria-label={entry === null ? 'Add a remote schema' : `Modify remote schema ${entry.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      {entry === null && <h1>Add a remote schema</h1>}
      <div className="row">
        <label htmlFor="rs-name">Remote schema name</label>
        <input id="rs-name" value={name} disabled={entry !== null} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="rs-comment">Comment</label>
        <input id="rs-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
      </div>
      <fieldset>
        <legend>GraphQL server</legend>
        <div className="row">
          <label htmlFor="rs-url">{fromEnv ? 'Environment variable with the URL' : 'GraphQL server URL'}</label>
          <input id="rs-url" className="wide-input" value={url} onChange={(e) => setUrl(e.target.value)} />
          <label>
            <input type="checkbox" checked={fromEnv} onChange={(e) => setFromEnv(e.target.checked)} /> from the environment
          </label>
        </div>
        <div className="row">
          <label htmlFor="rs-timeout">Timeout (seconds)</label>
          <input id="rs-timeout" inputMode="numeric" size={4} value={timeout} onChange={(e) => setTimeoutText(e.target.value)} />
          <label>
            <input type="checkbox" checked={forward} onChange={(e) => setForward(e.target.checked)} /> Forward client headers to the server
          </label>
        </div>
      </fieldset>
      <HeadersEditor label="Server headers" rows={headers} onChange={setHeaders} />
      <fieldset>
        <legend>Customization</legend>
        <div className="row">
          <label htmlFor="rs-namespace">Root fields namespace</label>
          <input id="rs-namespace" className="short" value={namespace} onChange={(e) => setNamespace(e.target.value)} />
          <label htmlFor="rs-prefix">Type name prefix</label>
          <input id="rs-prefix" className="short" value={prefix} onChange={(e) => setPrefix(e.target.value)} />
          <label htmlFor="rs-suffix">Type name suffix</label>
          <input id="rs-suffix" className="short" value={suffix} onChange={(e) => setSuffix(e.target.value)} />
        </div>
      </fieldset>
      <Status value={quiet && notice !== null ? { kind: 'ok', text: notice } : status} />
      <EditorButtons
        what="remote schema"
        existing={entry?.name ?? null}
        createVerb="Add"
        deleteVerb="Remove"
        deleteNoun="removal"
        confirming={confirmRemove}
        setConfirming={setConfirmRemove}
        onDelete={() => {
          if (entry === null) return;
          void run('Removing…', '', async () => {
            await callMetadata('remove_remote_schema', { name: entry.name });
            await refresh();
            onDone({}, `Removed remote schema ${entry.name}`);
          });
        }}
      >
        {entry !== null && (
          <button
            type="button"
            className="btn"
            onClick={() =>
              void run('Reloading…', `Reloaded remote schema ${entry.name}`, async () => {
                await callMetadata('reload_remote_schema', { name: entry.name });
                await refresh();
              })
            }
          >
            Reload remote schema
          </button>
        )}
      </EditorButtons>
    </form>
  );
}

function RemoteSchemaView({ name }: { name: string }) {
  const [sdl, setSdl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    remoteSdl(name).then(setSdl, (e: unknown) => setError(messageOf(e)));
  }, [name]);
  return (
    <section aria-label={`Schema of ${name}`}>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {sdl !== null && <pre aria-label={`SDL of ${name}`}>{sdl}</pre>}
    </section>
  );
}

function RemotePermissions({ entry }: { entry: RemoteSchemaEntry }) {
  const { metadata, refresh } = useMetadata();
  const [status, run] = useAction();
  const [open, setOpen] = useState<string | null>(null);
  const [sdl, setSdl] = useState('');
  const [extra, setExtra] = useState<string[]>([]);
  const perms = entry.permissions ?? [];
  const roles = [...new Set([...knownRoles(metadata), ...extra])].filter((r) => r !== 'admin').sort();
  const edit = (role: string) =>
    void run('Loading…', '', async () => {
      const existing = perms.find((p) => p.role === role);
      // A new permission starts from the whole schema, to be cut down.
      setSdl(existing?.definition.schema ?? (await remoteSdl(entry.name)));
      setOpen(role);
    });
  return (
    <section aria-label={`Permissions of ${entry.name}`}>
      <p className="muted">
        Enforced when the engine runs with <code>ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS=true</code>; without it every role sees the whole remote
        schema, as in v2.
      </p>
      <Status value={status} />
      <table className="grid matrix" aria-label={`Remote schema permissions of ${entry.name}`}>
        <thead>
          <tr>
            <th scope="col">Role</th>
            <th scope="col">Permission</th>
          </tr>
        </thead>
        <tbody>
          {roles.map((role) => {
            const has = perms.some((p) => p.role === role);
            return (
              <tr key={role}>
                <th scope="row">{role}</th>
                <td>
                  <button
                    type="button"
                    className={`btn small${open === role ? ' primary' : ''}`}
                    aria-label={`Permission of ${role}: ${has ? 'partial schema' : 'none'}`}
                    onClick={() => edit(role)}
                  >
                    {has ? '◐ schema' : '—'}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <NewRoleForm id="rs-new-role" onAdd={(r) => setExtra([...extra, r])} />
      {open !== null && (
        <form
          className="editor"
          aria-label={`Remote schema permission of ${open}`}
          onSubmit={(e) => {
            e.preventDefault();
            void run('Saving…', `Saved the permission of ${open} on ${entry.name}`, async () => {
              const calls: unknown[] = [];
              if (perms.some((p) => p.role === open)) calls.push({ type: 'drop_remote_schema_permissions', args: { remote_schema: entry.name, role: open } });
              calls.push({ type: 'add_remote_schema_permissions', args: { remote_schema: entry.name, role: open, definition: { schema: sdl } } });
              await callMetadata('bulk', calls);
              await refresh();
            });
          }}
        >
          <h2>
            Permission of <em>{open}</em> on {entry.name}
          </h2>
          <div className="field">
            <label htmlFor="rs-perm-sdl">Schema the role may use (SDL; a subset of the remote schema, with optional @preset arguments)</label>
            <textarea id="rs-perm-sdl" className="wide" rows={14} spellCheck={false} value={sdl} onChange={(e) => setSdl(e.target.value)} />
          </div>
          <div className="row">
            <button type="submit" className="btn primary">
              Save permission
            </button>
            {perms.some((p) => p.role === open) && (
              <button
                type="button"
                className="btn danger"
                onClick={() =>
                  void run('Deleting…', `Deleted the permission of ${open} on ${entry.name}`, async () => {
                    await callMetadata('drop_remote_schema_permissions', { remote_schema: entry.name, role: open });
                    setOpen(null);
                    await refresh();
                  })
                }
              >
                Delete permission
              </button>
            )}
            <button type="button" className="btn" onClick={() => setOpen(null)}>
              Close
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
