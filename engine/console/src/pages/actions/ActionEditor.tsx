/**
 * The editor of one action (or a new one): its SDL, the types it uses, handler, kind, headers,
 * timeout, request and response transforms (with the engine's live preview) and roles, saved as
 * one `bulk`.
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { HeadersEditor, Status, headerConfs, headerRows, useAction, wholeNumber, type HeaderRow } from '../../components.tsx';
import { knownRoles, useMetadata, type ActionEntry, type CustomTypes } from '../../metadata-state.tsx';
import { actionToSdl, mergeTypes, parseActionSdl, parseTypesSdl, typesToSdl, typesUsedBy } from './action-sdl.ts';
import { EditorButtons } from '../../lists.tsx';
import { TransformEditor } from '../../transforms/TransformEditor.tsx';
import { actionSample, readTransform, requestTransformOf, responseTransformOf, type TransformForm } from '../../transforms/transform-form.ts';

const NEW_ACTION_SDL = 'type Mutation {\n  actionName(arg1: SampleInput!): SampleOutput\n}';
const NEW_TYPES_SDL = 'input SampleInput {\n  username: String!\n  password: String!\n}\n\ntype SampleOutput {\n  accessToken: String!\n}';

export function ActionEditor({
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
  const [transform, setTransform] = useState<TransformForm>(() => readTransform(d?.request_transform, d?.response_transform));
  const [sample, setSample] = useState(() => actionSample(entry?.name ?? 'actionName', d?.arguments ?? []));
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
        ...(requestTransformOf(transform) !== undefined ? { request_transform: requestTransformOf(transform) } : {}),
        ...(responseTransformOf(transform) !== undefined ? { response_transform: responseTransformOf(transform) } : {}),
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
      <details className="transforms" open={d?.request_transform !== undefined || d?.response_transform !== undefined}>
        <summary>Request and response transforms</summary>
        <TransformEditor
          idPrefix="action-transform"
          value={transform}
          onChange={setTransform}
          webhookUrl={handler.trim() === '' ? null : handler.trim()}
          sample={sample}
          onSample={setSample}
        />
      </details>
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
