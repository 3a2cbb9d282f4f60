/**
 * Event triggers, per source: the list, an editor (table, operations, the
 * columns an update must touch, manual invocation, webhook or its
 * environment variable, retries, headers), delete, and per trigger its event
 * log (pending / processed, redeliver) and invocation log
 * (`pg_get_event_logs`, `pg_get_event_invocation_logs`, `pg_redeliver_event`)
 * and a manual invocation (`pg_invoke_event_trigger`).
 */
import { useCallback, useEffect, useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Done, HeadersEditor, JsonCell, LogTable, Status, headerConfs, headerRows, useAction, useRetryFields, type HeaderRow } from '../../components.tsx';
import { introspect, type DbInfo } from '../../introspect.ts';
import { tableKey, useMetadata, type EventTriggerEntry, type QualifiedTable, type SourceEntry } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { InvocationTable, Pager, RefreshButton, useLoad, type InvocationRow } from '../../logs.tsx';
import { EditorButtons, NavList, SourcePicker, Tabs } from '../../lists.tsx';

interface Located {
  readonly table: QualifiedTable;
  readonly trigger: EventTriggerEntry;
}

function triggersOf(source: SourceEntry | undefined): Located[] {
  return (source?.tables ?? [])
    .flatMap((t) => (t.event_triggers ?? []).map((trigger) => ({ table: t.table, trigger })))
    .sort((a, b) => a.trigger.name.localeCompare(b.trigger.name));
}

function link(params: Record<string, string>): string {
  return `#/events?${new URLSearchParams(params).toString()}`;
}

export function Events({ params }: { params: URLSearchParams }) {
  const { metadata, inconsistencies } = useMetadata();
  const sources = metadata?.sources ?? [];
  const source = params.get('source') ?? sources[0]?.name ?? 'default';
  const sourceEntry = sources.find((s) => s.name === source);
  const name = params.get('trigger');
  const tab = params.get('tab') ?? 'modify';
  const triggers = triggersOf(sourceEntry);
  const found = triggers.find((t) => t.trigger.name === name);
  const [notice, setNotice] = useState<{ at: string; text: string } | null>(null);
  const here = `${name ?? ''}:${tab}`;
  const done = (to: Record<string, string>, text: string) => {
    setNotice({ at: `${to['trigger'] ?? ''}:${to['tab'] ?? 'modify'}`, text });
    navigate('events', { source, ...to });
  };
  return (
    <div className="split">
      <nav className="sidebar" aria-label="Event triggers navigation">
        <SourcePicker id="events-source" sources={sources} value={source} onPick={(s) => navigate('events', { source: s })} />
        <NavList items={[{ key: 'New event trigger', href: link({ source }), current: name === null }]} />
        <h2>Event triggers</h2>
        <NavList
          label="Event triggers"
          empty={`No event triggers in ${source}.`}
          items={triggers.map((t) => ({
            key: t.trigger.name,
            href: link({ source, trigger: t.trigger.name }),
            current: name === t.trigger.name,
            problems: inconsistencies.filter((p) => p.type === 'event_trigger' && p.source === source && p.name === t.trigger.name),
            content: (
              <>
                {t.trigger.name} <span className="muted">on {tableKey(t.table)}</span>
              </>
            ),
          }))}
        />
      </nav>
      <div className="content">
        {metadata === null || sourceEntry === undefined ? null : name === null ? (
          <TriggerEditor key={`${source}/(new)`} source={sourceEntry} located={null} notice={notice?.at === here ? notice.text : null} onDone={done} />
        ) : found === undefined ? (
          <p role="alert" className="error">
            There is no event trigger {name} in {source}.
          </p>
        ) : (
          <>
            <h1>
              Event trigger {found.trigger.name} <span className="muted">on {tableKey(found.table)}</span>
            </h1>
            <Tabs
              label="Event trigger views"
              tabs={[
                ['modify', 'Modify'],
                ['events', 'Events'],
                ['invocations', 'Invocations'],
              ]}
              current={tab}
              href={(id) => link({ source, trigger: found.trigger.name, tab: id })}
            />
            {tab === 'modify' && (
              <TriggerEditor
                key={`${source}/${found.trigger.name}`}
                source={sourceEntry}
                located={found}
                notice={notice?.at === here ? notice.text : null}
                onDone={done}
              />
            )}
            {tab === 'events' && <EventLog key={found.trigger.name} source={source} trigger={found.trigger} />}
            {tab === 'invocations' && <InvocationLog key={found.trigger.name} source={source} trigger={found.trigger.name} />}
          </>
        )}
      </div>
    </div>
  );
}

type Op = 'insert' | 'update' | 'delete';

function TriggerEditor({
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
  const [status, run] = useAction();
  useEffect(() => {
    introspect(source.name, source.kind).then(setDb, () => setDb(null));
  }, [source.name, source.kind]);
  const columns = db?.tables.find((x) => `${x.schema}.${x.name}` === table)?.columns.map((c) => c.name) ?? [];

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
      for (const k of ['request_transform', 'response_transform', 'cleanup_config']) if (rest?.[k] !== undefined) args[k] = rest[k];
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

interface EventRow {
  readonly id: string;
  readonly payload: { op?: string; data?: unknown } | null;
  readonly delivered: boolean;
  readonly error: boolean;
  readonly tries: number;
  readonly created_at: string;
  readonly next_retry_at: string | null;
}

const PAGE = 20;

function eventState(e: EventRow): string {
  return e.delivered ? 'delivered' : e.error ? 'failed' : e.tries > 0 ? 'retrying' : 'pending';
}

function EventLog({ source, trigger }: { source: string; trigger: EventTriggerEntry }) {
  const [which, setWhich] = useState<'all' | 'pending' | 'processed'>('all');
  const [offset, setOffset] = useState(0);
  const [rows, setRows] = useState<EventRow[] | null>(null);
  const [payload, setPayload] = useState('{}');
  const load = useCallback(async () => {
    setRows(await callMetadata<EventRow[]>('pg_get_event_logs', { source, name: trigger.name, status: which, limit: PAGE, offset }));
  }, [source, trigger.name, which, offset]);
  const [status, reload, run] = useLoad(load);
  return (
    <section aria-label={`Events of ${trigger.name}`}>
      <div className="row">
        <label htmlFor="et-log-status">Show</label>
        <select
          id="et-log-status"
          value={which}
          onChange={(e) => {
            setWhich(e.target.value as 'all' | 'pending' | 'processed');
            setOffset(0);
          }}
        >
          <option value="all">all events</option>
          <option value="pending">pending events</option>
          <option value="processed">processed events</option>
        </select>
        <RefreshButton what="events" onClick={reload} />
      </div>
      <Status value={status} />
      {rows !== null && (
        <LogTable
          label="Event log"
          rows={rows}
          empty="No events."
          columns={[
            ['Event', (e) => <code>{e.id}</code>],
            ['Created', (e) => e.created_at],
            ['Operation', (e) => e.payload?.op ?? ''],
            ['State', (e) => eventState(e)],
            ['Tries', (e) => e.tries],
            ['Data', (e) => <JsonCell value={e.payload?.data} max={80} />],
            [
              'Redeliver',
              (e) => (
                <button
                  type="button"
                  className="btn small"
                  aria-label={`Redeliver event ${e.id}`}
                  onClick={() =>
                    void run('Redelivering…', `Event ${e.id} is due again`, async () => {
                      await callMetadata('pg_redeliver_event', { source, event_id: e.id });
                      await load();
                    })
                  }
                >
                  Redeliver
                </button>
              ),
            ],
          ]}
        />
      )}
      <Pager offset={offset} pageSize={PAGE} hasMore={(rows?.length ?? 0) >= PAGE} onOffset={setOffset} previous="Newer events" next="Older events" />
      {trigger.definition.enable_manual === true && (
        <form
          className="editor"
          aria-label="Invoke the trigger manually"
          onSubmit={(e) => {
            e.preventDefault();
            void run('Invoking…', '', async () => {
              let value: unknown;
              try {
                value = JSON.parse(payload);
              } catch {
                throw new Error('The payload is not JSON');
              }
              const r = await callMetadata<{ event_id: string }>('pg_invoke_event_trigger', { source, name: trigger.name, payload: value });
              await load();
              return new Done(`Invoked ${trigger.name}: event ${r.event_id}`);
            });
          }}
        >
          <h2>Invoke manually</h2>
          <div className="field">
            <label htmlFor="et-payload">Payload (the row, as JSON)</label>
            <textarea id="et-payload" rows={4} spellCheck={false} value={payload} onChange={(e) => setPayload(e.target.value)} />
          </div>
          <button type="submit" className="btn">
            Invoke {trigger.name}
          </button>
        </form>
      )}
    </section>
  );
}

function InvocationLog({ source, trigger }: { source: string; trigger: string }) {
  const [offset, setOffset] = useState(0);
  const [rows, setRows] = useState<InvocationRow[] | null>(null);
  const load = useCallback(async () => {
    setRows(await callMetadata<InvocationRow[]>('pg_get_event_invocation_logs', { source, name: trigger, limit: PAGE, offset }));
  }, [source, trigger, offset]);
  const [status, reload] = useLoad(load);
  return (
    <section aria-label={`Invocations of ${trigger}`}>
      <div className="row">
        <RefreshButton what="invocations" onClick={reload} />
      </div>
      <Status value={status} />
      {rows !== null && <InvocationTable rows={rows} empty="No invocations." />}
      <Pager offset={offset} pageSize={PAGE} hasMore={(rows?.length ?? 0) >= PAGE} onOffset={setOffset} previous="Newer invocations" next="Older invocations" />
    </section>
  );
}
