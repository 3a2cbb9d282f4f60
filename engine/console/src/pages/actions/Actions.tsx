/**
 * Actions: the list, an editor per action (its root field and the types it
 * uses as SDL, handler, kind, headers, forwarding of client headers, timeout,
 * the roles allowed to run it) saved as one `bulk` (custom types, the action,
 * its permission changes: all or nothing), delete, the relationships of its
 * output type to tables, and the editor of all custom types (`set_custom_types`).
 */
import { useState } from 'react';
import { useMetadata } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { NavList } from '../../lists.tsx';
import { ActionEditor } from './ActionEditor.tsx';
import { CustomTypesEditor } from './CustomTypesEditor.tsx';
import { ActionRelationships, baseTypeName } from './ActionRelationships.tsx';

export function Actions({ params }: { params: URLSearchParams }) {
  const { metadata, inconsistencies } = useMetadata();
  const actions = [...(metadata?.actions ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const selected = params.get('action');
  const view = params.get('view') ?? (selected !== null ? 'edit' : 'new');
  const entry = actions.find((a) => a.name === selected);
  // What the last save or delete did, shown by the editor it led to (a new instance).
  const [notice, setNotice] = useState<{ view: string; text: string } | null>(null);
  const here = `${view}:${selected ?? ''}`;
  const done = (to: Record<string, string>, text: string) => {
    setNotice({ view: `${to['view'] ?? 'edit'}:${to['action'] ?? ''}`, text });
    navigate('actions', to);
  };
  return (
    <div className="split">
      <nav className="sidebar" aria-label="Actions navigation">
        <NavList
          items={[
            { key: 'New action', href: '#/actions?view=new', current: view === 'new' },
            { key: 'Custom types', href: '#/actions?view=types', current: view === 'types' },
          ]}
        />
        <h2>Actions</h2>
        <NavList
          label="Actions"
          empty="No actions yet."
          items={actions.map((a) => ({
            key: a.name,
            href: `#/actions?action=${encodeURIComponent(a.name)}`,
            current: selected === a.name,
            problems: inconsistencies.filter(
              (p) => (p.type === 'action' && p.name === a.name) || (p.type === 'action_permission' && p.name?.startsWith(`${a.name}.`)),
            ),
            content: (
              <>
                {a.name} <span className="muted">({a.definition.type ?? 'mutation'})</span>
              </>
            ),
          }))}
        />
      </nav>
      <div className="content">
        {metadata === null ? null : view === 'types' ? (
          <CustomTypesEditor types={metadata.custom_types ?? {}} />
        ) : view === 'edit' && entry === undefined ? (
          <p role="alert" className="error">
            There is no action {selected}.
          </p>
        ) : (
          <>
            <ActionEditor
              key={entry?.name ?? '(new)'}
              entry={entry ?? null}
              types={metadata.custom_types ?? {}}
              notice={notice?.view === here ? notice.text : null}
              onDone={done}
            />
            {entry !== undefined && <ActionRelationships key={entry.name} outputType={baseTypeName(entry.definition.output_type)} />}
          </>
        )}
      </div>
    </div>
  );
}
