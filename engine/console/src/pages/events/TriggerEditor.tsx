/**
 * The editor of an event trigger: create, or modify (`pg_create_event_trigger` with `replace`,
 * request and response transforms with the engine's live preview included), and delete.
 */
import { useEffect, useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { HeadersEditor, Status, headerConfs, headerRows, useAction, useRetryFields, type HeaderRow } from '../../components.tsx';
import { introspect, type DbInfo } from '../../introspect.ts';
import { tableKey, useMetadata, type EventTriggerEntry, type QualifiedTable, type SourceEntry } from '../../metadata-state.tsx';
import { EditorButtons } from '../../lists.tsx';
import { TransformEditor } from '../../transforms/TransformEditor.tsx';
import { eventSample, readTransform, requestTransformOf, responseTransformOf, type TransformForm } from '../../transforms/transform-form.ts';

/** A trigger and the table it is on. */
export interface Located {
  readonly table: QualifiedTable;
  readonly trigger: EventTriggerEntry;
}

type Op = 'insert' | 'update' | 'delete';

export function TriggerEditor({
  source,
  located,
  notice,
  onDone,
}: {
  source: SourceEntry;
  located: Located | null;
  notice: string | null;
  onDone: (to: Record<string, string>, text: string) => void;
}) {
  const { refresh } = useMetadata();
  const t = located?.trigger;
  const [db, setDb] = useState<DbInfo | null>(null);
  const [name, setName] = useState(t?.name ?? '');
  const [table, setTable] = useState(located !== null ? tableKey(located.table) : source.tables[0] !== undefined ? tableKey(source.tables[0].table) : '');
  const [ops, setOps] = useState<Record<Op, boolean>>({
    insert: t?.definition.insert !== undefined,
    update: t?.definition.update !== undefined,
    delete: t?.definition.delete !== undefined,
  });
  const updateCols = t?.definition.update?.columns;
  const [allUpdateColumns, setAllUpdateColumns] = useState(updateCols === undefined || updateCols === '*');
  const [updateColumns, setUpdateColumns] = useState<string[]>(Array.isArray(updateCols) ? [...(updateCols as string[])] : []);
  const [manual, setManual] = useState(t?.definition.enable_manual ?? false);
  const [fromEnv, setFromEnv] = useState(t?.webhook_from_env !== undefined);
  const [webhook, setWebhook] = useState(t?.webhook_from_env ?? t?.webhook ?? '');
  const retry = useRetryFields('et', {
    retries: t?.retry_conf?.num_retries ?? 0,
    interval: t?.retry_conf?.interval_sec ?? 10,
    timeout: t?.retry_conf?.timeout_sec ?? 60,
  });
  const [headers, setHeaders] = useState<HeaderRow[]>(headerRows(t?.headers));
  const [confirmDelete, setConfirmDelete] = useState(false);
  const kept = t as unknown as Record<string, unknown> | undefined;
  const [transform, setTransform] = useState<TransformForm>(() => readTransform(kept?.['request_transform'], kept?.['response_transform']));
  // null: the sample insert of the chosen table, until the sample is edited.
  const [sampleText, setSample] = useState<string | null>(null);
  const [status, run] = useAction();
  useEffect(() => {
    introspect(source.name, source.kind).then(setDb, () => setDb(null));
  }, [source.name, source.kind]);
  const columns = db?.tables.find((x) => `${x.schema}.${x.name}` === table)?.columns.map((c) => c.name) ?? [];
  const tableName = source.tables.find((x) => tableKey(x.table) === table)?.table ?? { schema: '', name: table };
  const sample = sampleText ?? eventSample(name.trim() === '' ? 'trigger' : name.trim(), tableName, columns);

  const save = () =>
    void run('Saving…', '', async () => {
      const entry = source.tables.find((x) => tableKey(x.table) === table);
      if (entry === undefined) throw new Error('Choose a tracked table');
      if (name.trim() === '') throw new Error('The trigger needs a name');
      if (webhook.trim() === '') throw new Error(fromEnv ? 'Name the environment variable that holds the webhook URL' : 'The webhook URL is required');
      const r = retry.build();
      const args: Record<string, unknown> = {
        source: source.name,
        name: name.trim(),
        table: entry.table,
        ...(fromEnv ? { webhook_from_env: webhook.trim() } : { webhook: webhook.trim() }),
        enable_manual: manual,
        retry_conf: { num_retries: r.retries, interval_sec: r.interval, timeout_sec: r.timeout },
        headers: headerConfs(headers),
        ...(located !== null ? { replace: true } : {}),
      };
      if (ops.insert) args['insert'] = { columns: '*' };
      if (ops.update) args['update'] = { columns: allUpdateColumns ? '*' : updateColumns };
      if (ops.delete) args['delete'] = { columns: '*' };
      // What the form does not edit is kept on a replace.
      const rest = t as unknown as Record<string, unknown> | undefined;
      if (rest?.['cleanup_config'] !== undefined) args['cleanup_config'] = rest['cleanup_config'];
      const request = requestTransformOf(transform);
      const response = responseTransformOf(transform);
      if (request !== undefined) args['request_transform'] = request;
      if (response !== undefined) args['response_transform'] = response;
      await callMetadata('pg_create_event_trigger', args);
      await refresh();
      onDone({ trigger: name.trim() }, `Saved event trigger ${name.trim()}`);
    });

  const remove = () =>
    void run('Deleting…', '', async () => {
      await callMetadata('pg_delete_event_trigger', { source: source.name, name: t!.name });
      await refresh();
      onDone({}, `Deleted event trigger ${t!.name}`);
    });

  const quiet = status.kind === 'idle' || (status.kind === 'ok' && status.text === '');
  return (
    <form
      aria-label={located === null ? 'New event trigger' : `Modify event trigger ${t!.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      {located === null && <h1>New event trigger</h1>}
      <div className="row">
        <label htmlFor="et-name">Trigger name</label>
        <input id="et-name" value={name} disabled={located !== null} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="et-table">Table</label>
        <select id="et-table" value={table} disabled={located !== null} onChange={(e) => setTable(e.target.value)}>
          {source.tables.map((x) => (
            <option key={tableKey(x.table)} value={tableKey(x.table)}>
              {tableKey(x.table)}
            </option>
          ))}
        </select>
      </div>
      <fieldset>
        <legend>Operations</legend>
        <div className="columns-list">
          {(['insert', 'update', 'delete'] as const).map((op) => (
            <label key={op}>
              <input type="checkbox" checked={ops[op]} onChange={(e) => setOps({ ...ops, [op]: e.target.checked })} /> {op}
            </label>
          ))}
          <label>
            <input type="checkbox" checked={manual} onChange={(e) => setManual(e.target.checked)} /> manual (invoke from the console or the API)
          </label>
        </div>
      </fieldset>
      {ops.update && (
        <fieldset>
          <legend>Update fires when these columns change</legend>
          <label className="row">
            <input type="checkbox" checked={allUpdateColumns} onChange={(e) => setAllUpdateColumns(e.target.checked)} /> any column
          </label>
          {!allUpdateColumns && (
            <div className="columns-list">
              {columns.map((c) => (
                <label key={c}>
                  <input
                    type="checkbox"
                    aria-label={`Update column ${c}`}
                    checked={updateColumns.includes(c)}
                    onChange={(e) => setUpdateColumns(e.target.checked ? [...updateColumns, c] : updateColumns.filter((x) => x !== c))}
                  />{' '}
                  {c}
                </label>
              ))}
            </div>
          )}
        </fieldset>
      )}
      <fieldset>
        <legend>Webhook</legend>
        <div className="row">
          <label htmlFor="et-webhook">{fromEnv ? 'Environment variable with the webhook URL' : 'Webhook URL'}</label>
          <input id="et-webhook" className="wide-input" value={webhook} onChange={(e) => setWebhook(e.target.value)} />
          <label>
            <input type="checkbox" checked={fromEnv} onChange={(e) => setFromEnv(e.target.checked)} /> from the environment
          </label>
        </div>
      </fieldset>
      {retry.fields}
      <HeadersEditor label="Webhook headers" rows={headers} onChange={setHeaders} />
      <details className="transforms" open={kept?.['request_transform'] !== undefined || kept?.['response_transform'] !== undefined}>
        <summary>Request and response transforms</summary>
        <TransformEditor
          idPrefix="et-transform"
          value={transform}
          onChange={setTransform}
          webhookUrl={webhook.trim() === '' ? null : fromEnv ? { from_env: webhook.trim() } : webhook.trim()}
          sample={sample}
          onSample={setSample}
        />
      </details>
      <Status value={quiet && notice !== null ? { kind: 'ok', text: notice } : status} />
      <EditorButtons
        what="event trigger"
        existing={located === null ? null : t!.name}
        confirming={confirmDelete}
        setConfirming={setConfirmDelete}
        onDelete={remove}
      />
    </form>
  );
}
