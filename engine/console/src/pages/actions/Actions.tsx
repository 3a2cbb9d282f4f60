/**
 * Actions: the list, an editor per action (its root field and the types it
 * uses as SDL, handler, kind, headers, forwarding of client headers, timeout,
 * the roles allowed to run it) saved as one `bulk` (custom types, the action,
 * its permission changes: all or nothing), delete, and the editor of all
 * custom types (`set_custom_types`).
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { HeadersEditor, Status, headerConfs, headerRows, useAction, wholeNumber, type HeaderRow } from '../../components.tsx';
import { knownRoles, useMetadata, type ActionEntry, type CustomTypes } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { actionToSdl, mergeTypes, parseActionSdl, parseTypesSdl, typesToSdl, typesUsedBy } from './action-sdl.ts';
import { EditorButtons, NavList } from '../../lists.tsx';

const NEW_ACTION_SDL = 'type Mutation {\n  actionName(arg1: SampleInput!): SampleOutput\n}';
const NEW_TYPES_SDL = 'input SampleInput {\n  username: String!\n  password: String!\n}\n\ntype SampleOutput {\n  accessToken: String!\n}';

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
          <ActionEditor
            key={entry?.name ?? '(new)'}
            entry={entry ?? null}
            types={metadata.custom_types ?? {}}
            notice={notice?.view === here ? notice.text : null}
            onDone={done}
          />
        )}
      </div>
    </div>
  );
}

function ActionEditor({
  entry,
  types,
  notice,
  onDone,
}: {
  entry: ActionEntry | null;
  types: CustomTypes;
  notice: string | null;
  onDone: (to: Record<string, string>, text: string) => void;
}) {
  const { metadata, refresh } = useMetadata();
  const d = entry?.definition;
  const [sdl, setSdl] = useState(entry !== null ? actionToSdl(entry.name, entry.definition, entry.comment) : NEW_ACTION_SDL);
  const [typesSdl, setTypesSdl] = useState(d !== undefined ? typesToSdl(types, typesUsedBy(d, types)) : NEW_TYPES_SDL);
  const [handler, setHandler] = useState(d?.handler ?? '');
  const [kind, setKind] = useState<'synchronous' | 'asynchronous'>(d?.kind ?? 'synchronous');
  const [headers, setHeaders] = useState<HeaderRow[]>(headerRows(d?.headers));
  const [forward, setForward] = useState(d?.forward_client_headers ?? false);
  const [timeout, setTimeoutText] = useState(d?.timeout !== undefined && d.timeout !== null ? String(d.timeout) : '');
  const before = (entry?.permissions ?? []).map((p) => p.role);
  const [roles, setRoles] = useState<string[]>(before);
  const [newRole, setNewRole] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [status, run] = useAction();
  const roleChoices = [...new Set([...knownRoles(metadata), ...roles])].filter((r) => r !== 'admin').sort();

  const save = () =>
    void run('Saving…', '', async () => {
      const parsed = parseActionSdl(sdl);
      const incoming = parseTypesSdl(typesSdl);
      if (parsed.type === 'query' && kind === 'asynchronous') throw new Error('An asynchronous action must be a mutation');
      if (handler.trim() === '') throw new Error('The handler URL is required');
      const seconds = timeout.trim() === '' ? undefined : wholeNumber(timeout, 'The timeout (seconds)', 1);
      const definition: Record<string, unknown> = {
        type: parsed.type,
        kind,
        arguments: parsed.arguments,
        output_type: parsed.output_type,
        handler: handler.trim(),
        headers: headerConfs(headers),
        forward_client_headers: forward,
        ...(seconds !== undefined ? { timeout: seconds } : {}),
        // What the form does not edit (transforms) is kept.
        ...(d?.request_transform !== undefined ? { request_transform: d.request_transform } : {}),
        ...(d?.response_transform !== undefined ? { response_transform: d.response_transform } : {}),
      };
      const comment = parsed.description;
      const calls: unknown[] = [{ type: 'set_custom_types', args: mergeTypes(types, incoming) }];
      const renamed = entry !== null && entry.name !== parsed.name;
      if (entry === null || renamed) {
        calls.push({ type: 'create_action', args: { name: parsed.name, definition, ...(comment !== null ? { comment } : {}) } });
        for (const role of roles) calls.push({ type: 'create_action_permission', args: { action: parsed.name, role } });
        if (renamed) calls.push({ type: 'drop_action', args: { name: entry.name, clear_data: false } });
      } else {
        calls.push({ type: 'update_action', args: { name: parsed.name, definition, comment } });
        for (const role of before.filter((r) => !roles.includes(r))) calls.push({ type: 'drop_action_permission', args: { action: parsed.name, role } });
        for (const role of roles.filter((r) => !before.includes(r))) calls.push({ type: 'create_action_permission', args: { action: parsed.name, role } });
      }
      await callMetadata('bulk', calls);
      await refresh();
      onDone({ action: parsed.name }, `Saved action ${parsed.name}`);
    });

  const remove = () =>
    void run('Deleting…', '', async () => {
      await callMetadata('drop_action', { name: entry!.name });
      await refresh();
      onDone({ view: 'new' }, `Deleted action ${entry!.name}`);
    });

  const quiet = status.kind === 'idle' || (status.kind === 'ok' && status.text === '');
  const shownStatus = quiet && notice !== null ? ({ kind: 'ok', text: notice } as const) : status;

  return (
    <form
      className="action-editor"
      aria-label={entry === null ? 'New action' : `Action ${entry.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <h1>{entry === null ? 'New action' : `Action ${entry.name}`}</h1>
      <div className="two-columns">
        <div className="field">
          <label htmlFor="action-sdl">Action definition (SDL)</label>
          <textarea id="action-sdl" rows={6} spellCheck={false} value={sdl} onChange={(e) => setSdl(e.target.value)} />
          <span className="muted">One field of type Query or type Mutation; a description becomes the action's comment.</span>
        </div>
        <div className="field">
          <label htmlFor="action-types">Type definitions (SDL)</label>
          <textarea id="action-types" rows={10} spellCheck={false} value={typesSdl} onChange={(e) => setTypesSdl(e.target.value)} />
          <span className="muted">Types named here replace those of the same name; other custom types are kept.</span>
        </div>
      </div>
      <div className="field">
        <label htmlFor="action-handler">Handler URL</label>
        <input
          id="action-handler"
          placeholder="https://handler.example/action or {{ACTION_BASE_URL}}/action"
          value={handler}
          onChange={(e) => setHandler(e.target.value)}
        />
      </div>
      <div className="row">
        <label htmlFor="action-kind">Kind</label>
        <select id="action-kind" value={kind} onChange={(e) => setKind(e.target.value as 'synchronous' | 'asynchronous')}>
          <option value="synchronous">synchronous</option>
          <option value="asynchronous">asynchronous</option>
        </select>
        <label htmlFor="action-timeout">Timeout (seconds)</label>
        <input id="action-timeout" inputMode="numeric" placeholder="30" value={timeout} onChange={(e) => setTimeoutText(e.target.value)} />
        <label>
          <input type="checkbox" checked={forward} onChange={(e) => setForward(e.target.checked)} /> Forward client headers to the handler
        </label>
      </div>
      <HeadersEditor label="Handler headers" rows={headers} onChange={setHeaders} />
      <fieldset>
        <legend>Roles allowed to run the action (admin always may)</legend>
        <div className="columns-list">
          {roleChoices.map((r) => (
            <label key={r}>
              <input type="checkbox" checked={roles.includes(r)} onChange={(e) => setRoles(e.target.checked ? [...roles, r] : roles.filter((x) => x !== r))} />{' '}
              {r}
            </label>
          ))}
        </div>
        <div className="row">
          <label htmlFor="action-new-role">Another role</label>
          <input id="action-new-role" value={newRole} onChange={(e) => setNewRole(e.target.value)} />
          <button
            type="button"
            className="btn small"
            onClick={() => {
              const r = newRole.trim();
              if (r !== '' && r !== 'admin' && !roles.includes(r)) setRoles([...roles, r]);
              setNewRole('');
            }}
          >
            Allow role
          </button>
        </div>
      </fieldset>
      <Status value={shownStatus} />
      <EditorButtons what="action" existing={entry?.name ?? null} confirming={confirmDelete} setConfirming={setConfirmDelete} onDelete={remove} />
    </form>
  );
}

function CustomTypesEditor({ types }: { types: CustomTypes }) {
  const { refresh } = useMetadata();
  const [sdl, setSdl] = useState(typesToSdl(types));
  const [status, run] = useAction();
  const relationships = (types.objects ?? []).filter((o) => (o.relationships ?? []).length > 0);
  return (
    <form
      aria-label="Custom types"
      onSubmit={(e) => {
        e.preventDefault();
        void run('Saving…', 'Saved the custom types', async () => {
          // The whole set is replaced, but objects keep their relationships (SDL has no syntax for them).
          const parsed = parseTypesSdl(sdl);
          const withRelationships = mergeTypes({ objects: relationships }, parsed);
          const kept = new Set((['scalars', 'enums', 'input_objects', 'objects'] as const).flatMap((k) => (parsed[k] ?? []).map((t) => t.name)));
          const result = { ...withRelationships, objects: (withRelationships.objects ?? []).filter((o) => kept.has(o.name)) };
          await callMetadata('set_custom_types', result);
          await refresh();
        });
      }}
    >
      <h1>Custom types</h1>
      <p className="muted">
        Every custom type as SDL: <code>type</code> (output objects), <code>input</code>, <code>enum</code>, <code>scalar</code>. Saving replaces the whole set
        (set_custom_types); a type an action still uses cannot be dropped.
      </p>
      <div className="field">
        <label htmlFor="custom-types-sdl">Custom types (SDL)</label>
        <textarea id="custom-types-sdl" rows={22} spellCheck={false} value={sdl} onChange={(e) => setSdl(e.target.value)} />
      </div>
      <Status value={status} />
      <button type="submit" className="btn primary">
        Save custom types
      </button>
    </form>
  );
}
