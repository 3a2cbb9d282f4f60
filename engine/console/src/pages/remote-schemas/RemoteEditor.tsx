/** Adds or modifies a remote schema (`add_remote_schema` / `update_remote_schema`), reloads or removes it. */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { HeadersEditor, Status, headerConfs, headerRows, useAction, wholeNumber, type HeaderRow } from '../../components.tsx';
import { useMetadata, type RemoteSchemaEntry } from '../../metadata-state.tsx';
import { EditorButtons } from '../../lists.tsx';

export function RemoteEditor({
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
