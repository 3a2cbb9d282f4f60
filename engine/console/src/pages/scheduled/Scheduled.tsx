/**
 * Cron triggers and one-off scheduled events: the cron triggers
 * (`get_cron_triggers`, so those kept out of exported metadata too), an editor
 * (`create_cron_trigger`, with `replace` when modifying), delete, and per
 * trigger its events and invocations; one-off events: schedule one
 * (`create_scheduled_event`), list them by status, delete one, and each one's
 * invocations (`get_scheduled_events`, `get_scheduled_event_invocations`).
 */
import { useCallback, useEffect, useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import {
  Done,
  HeadersEditor,
  JsonCell,
  LogTable,
  Status,
  headerConfs,
  headerRows,
  useAction,
  useRetryFields,
  type HeaderRow,
  type StatusValue,
} from '../../components.tsx';
import { useMetadata, type CronTriggerEntry, type RetryConfSt } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { InvocationTable, Pager, RefreshButton, useLoad, type InvocationRow } from '../../logs.tsx';
import { EditorButtons, NavList, Tabs } from '../../lists.tsx';

function link(params: Record<string, string>): string {
  return `#/scheduled?${new URLSearchParams(params).toString()}`;
}

export function Scheduled({ params }: { params: URLSearchParams }) {
  const { metadata } = useMetadata();
  const [crons, setCrons] = useState<CronTriggerEntry[] | null>(null);
  const loadCrons = useCallback(async () => {
    const r = await callMetadata<{ cron_triggers: CronTriggerEntry[] }>('get_cron_triggers', {});
    setCrons([...r.cron_triggers].sort((a, b) => a.name.localeCompare(b.name)));
  }, []);
  // The list follows the metadata (another tab or the API may change it).
  useEffect(() => {
    void loadCrons();
  }, [loadCrons, metadata]);
  const name = params.get('cron');
  const view = params.get('view') ?? (name !== null ? 'cron' : 'new-cron');
  const tab = params.get('tab') ?? 'modify';
  const found = crons?.find((c) => c.name === name);
  const [notice, setNotice] = useState<{ at: string; text: string } | null>(null);
  const here = `${view}:${name ?? ''}:${tab}`;
  const done = (to: Record<string, string>, text: string) => {
    setNotice({ at: `${to['view'] ?? (to['cron'] !== undefined ? 'cron' : 'new-cron')}:${to['cron'] ?? ''}:${to['tab'] ?? 'modify'}`, text });
    navigate('scheduled', to);
  };
  return (
    <div className="split">
      <nav className="sidebar" aria-label="Scheduled triggers navigation">
        <NavList
          items={[
            { key: 'One-off events', href: link({ view: 'one-off' }), current: view === 'one-off' },
            { key: 'New cron trigger', href: link({ view: 'new-cron' }), current: view === 'new-cron' },
          ]}
        />
        <h2>Cron triggers</h2>
        <NavList
          label="Cron triggers"
          // Until the list is read, an empty list rather than "none".
          {...(crons === null ? {} : { empty: 'No cron triggers.' })}
          items={(crons ?? []).map((c) => ({
            key: c.name,
            href: link({ cron: c.name }),
            current: name === c.name,
            content: (
              <>
                {c.name} <span className="muted">{c.schedule}</span>
              </>
            ),
          }))}
        />
      </nav>
      <div className="content">
        {view === 'one-off' ? (
          <OneOffEvents />
        ) : view === 'new-cron' ? (
          <CronEditor key="(new)" entry={null} notice={notice?.at === here ? notice.text : null} onDone={done} reload={loadCrons} />
        ) : crons === null ? null : found === undefined ? (
          <p role="alert" className="error">
            There is no cron trigger {name}.
          </p>
        ) : (
          <>
            <h1>
              Cron trigger {found.name} <span className="muted">{found.schedule}</span>
            </h1>
            <Tabs
              label="Cron trigger views"
              tabs={[
                ['modify', 'Modify'],
                ['events', 'Events'],
                ['invocations', 'Invocations'],
              ]}
              current={tab}
              href={(id) => link({ cron: found.name, tab: id })}
            />
            {tab === 'modify' && (
              <CronEditor key={found.name} entry={found} notice={notice?.at === here ? notice.text : null} onDone={done} reload={loadCrons} />
            )}
            {tab === 'events' && <ScheduledEventList key={found.name} kind="cron" trigger={found.name} />}
            {tab === 'invocations' && <InvocationList key={found.name} kind="cron" trigger={found.name} eventId={null} />}
          </>
        )}
      </div>
    </div>
  );
}

/** Retry settings of a scheduled event or cron trigger (v2's RetryConfST). */
/** The retry fields of a scheduled event, in `retry_conf`'s terms. */
function useRetry(initial: RetryConfSt | undefined) {
  const { build, fields } = useRetryFields('st', {
    retries: initial?.num_retries ?? 0,
    interval: initial?.retry_interval_seconds ?? 10,
    timeout: initial?.timeout_seconds ?? 60,
    tolerance: initial?.tolerance_seconds ?? 21600,
  });
  return {
    build: (): RetryConfSt => {
      const r = build();
      return { num_retries: r.retries, retry_interval_seconds: r.interval, timeout_seconds: r.timeout, tolerance_seconds: r.tolerance ?? 21600 };
    },
    fields,
  };
}

function parsePayload(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error('The payload is not JSON');
  }
}

const SCHEDULES: ReadonlyArray<readonly [string, string]> = [
  ['Every minute', '* * * * *'],
  ['Every hour', '0 * * * *'],
  ['Every day at midnight (UTC)', '0 0 * * *'],
];

function CronEditor({
  entry,
  notice,
  onDone,
  reload,
}: {
  entry: CronTriggerEntry | null;
  notice: string | null;
  onDone: (to: Record<string, string>, text: string) => void;
  reload: () => Promise<void>;
}) {
  const { refresh } = useMetadata();
  const [name, setName] = useState(entry?.name ?? '');
  const [webhook, setWebhook] = useState(entry?.webhook ?? '');
  const [schedule, setSchedule] = useState(entry?.schedule ?? '');
  const [payload, setPayload] = useState(entry?.payload === undefined ? '' : JSON.stringify(entry.payload, null, 2));
  const [headers, setHeaders] = useState<HeaderRow[]>(headerRows(entry?.headers));
  const [include, setInclude] = useState(entry?.include_in_metadata ?? true);
  const [comment, setComment] = useState(entry?.comment ?? '');
  const retry = useRetry(entry?.retry_conf);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [status, run] = useAction();
  const save = () =>
    void run('Saving…', '', async () => {
      if (name.trim() === '') throw new Error('The cron trigger needs a name');
      const value = parsePayload(payload);
      const rest = entry as unknown as Record<string, unknown> | null;
      await callMetadata('create_cron_trigger', {
        name: name.trim(),
        webhook: webhook.trim(),
        schedule: schedule.trim(),
        ...(value !== undefined ? { payload: value } : {}),
        headers: headerConfs(headers),
        retry_conf: retry.build(),
        include_in_metadata: include,
        ...(comment.trim() !== '' ? { comment: comment.trim() } : {}),
        // What the form does not edit is kept on a replace.
        ...(rest?.['request_transform'] !== undefined ? { request_transform: rest['request_transform'] } : {}),
        ...(rest?.['response_transform'] !== undefined ? { response_transform: rest['response_transform'] } : {}),
        ...(entry !== null ? { replace: true } : {}),
      });
      await Promise.all([refresh(), reload()]);
      onDone({ cron: name.trim() }, `Saved cron trigger ${name.trim()}`);
    });
  const remove = () =>
    void run('Deleting…', '', async () => {
      await callMetadata('delete_cron_trigger', { name: entry!.name });
      await Promise.all([refresh(), reload()]);
      onDone({ view: 'new-cron' }, `Deleted cron trigger ${entry!.name}`);
    });
  const quiet = status.kind === 'idle' || (status.kind === 'ok' && status.text === '');
  return (
    <form
      aria-label={entry === null ? 'New cron trigger' : `Modify cron trigger ${entry.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      {entry === null && <h1>New cron trigger</h1>}
      <div className="row">
        <label htmlFor="cron-name">Name</label>
        <input id="cron-name" value={name} disabled={entry !== null} onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="row">
        <label htmlFor="cron-webhook">Webhook URL</label>
        <input
          id="cron-webhook"
          className="wide-input"
          placeholder="https://… or {{ENV_VAR}}/path"
          value={webhook}
          onChange={(e) => setWebhook(e.target.value)}
        />
      </div>
      <div className="row">
        <label htmlFor="cron-schedule">Cron schedule (UTC)</label>
        <input id="cron-schedule" placeholder="*/5 * * * *" value={schedule} onChange={(e) => setSchedule(e.target.value)} />
        {SCHEDULES.map(([title, expr]) => (
          <button key={expr} type="button" className="btn small" onClick={() => setSchedule(expr)}>
            {title}
          </button>
        ))}
      </div>
      <div className="field">
        <label htmlFor="cron-payload">Payload (JSON, optional)</label>
        <textarea id="cron-payload" rows={3} spellCheck={false} value={payload} onChange={(e) => setPayload(e.target.value)} />
      </div>
      <HeadersEditor label="Webhook headers" rows={headers} onChange={setHeaders} />
      {retry.fields}
      <div className="row">
        <label>
          <input type="checkbox" checked={include} onChange={(e) => setInclude(e.target.checked)} /> Include in exported metadata
        </label>
        <label htmlFor="cron-comment">Comment</label>
        <input id="cron-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
      </div>
      <Status value={quiet && notice !== null ? { kind: 'ok', text: notice } : status} />
      <EditorButtons what="cron trigger" existing={entry?.name ?? null} confirming={confirmDelete} setConfirming={setConfirmDelete} onDelete={remove} />
    </form>
  );
}

interface ScheduledEventRow {
  readonly id: string;
  readonly scheduled_time: string;
  readonly status: string;
  readonly tries: number;
  readonly created_at: string;
  readonly next_retry_at: string | null;
  readonly webhook_conf?: string | null;
  readonly payload?: unknown;
  readonly comment?: string | null;
}

const PAGE = 20;
const STATUSES = ['scheduled', 'locked', 'delivered', 'error', 'dead'] as const;

function ScheduledEventList({
  kind,
  trigger,
  reloadKey = 0,
  onShowInvocations,
  onStatus,
}: {
  kind: 'cron' | 'one_off';
  trigger: string | null;
  reloadKey?: number;
  onShowInvocations?: (id: string) => void;
  onStatus?: (s: StatusValue) => void;
}) {
  const [which, setWhich] = useState<string>('all');
  const [offset, setOffset] = useState(0);
  const [rows, setRows] = useState<{ events: ScheduledEventRow[]; count?: number } | null>(null);
  const load = useCallback(async () => {
    setRows(
      await callMetadata('get_scheduled_events', {
        type: kind,
        ...(trigger !== null ? { trigger_name: trigger } : {}),
        ...(which !== 'all' ? { status: [which] } : {}),
        pagination: { limit: PAGE, offset },
        get_rows_count: true,
      }),
    );
  }, [kind, trigger, which, offset]);
  const [status, reload, run] = useLoad(load, reloadKey);
  useEffect(() => onStatus?.(status), [status]);
  const count = rows?.count ?? 0;
  const what = kind === 'cron' ? 'Events' : 'One-off events';
  return (
    <section aria-label={trigger !== null ? `Events of ${trigger}` : 'One-off events'}>
      <div className="row">
        <label htmlFor="st-log-status">Show</label>
        <select
          id="st-log-status"
          value={which}
          onChange={(e) => {
            setWhich(e.target.value);
            setOffset(0);
          }}
        >
          <option value="all">all events</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s} events
            </option>
          ))}
        </select>
        <RefreshButton what="events" onClick={reload} />
        {rows !== null && (
          <span className="muted">
            {count === 0 ? 'none' : `${offset + 1}–${Math.min(offset + PAGE, count)} of ${count}`} (
            {kind === 'cron' ? 'upcoming times are stored ahead' : 'oldest first'})
          </span>
        )}
      </div>
      {onStatus === undefined && <Status value={status} />}
      {rows !== null && (
        <LogTable
          label={what}
          rows={rows.events}
          empty="No events."
          columns={[
            ['Event', (e) => <code>{e.id}</code>],
            ['Scheduled for', (e) => e.scheduled_time],
            ['Status', (e) => e.status],
            ['Tries', (e) => e.tries],
            ...(kind === 'one_off'
              ? ([
                  ['Webhook', (e: ScheduledEventRow) => e.webhook_conf ?? ''],
                  ['Payload', (e: ScheduledEventRow) => <JsonCell value={e.payload} max={60} />],
                  ['Comment', (e: ScheduledEventRow) => e.comment ?? ''],
                  [
                    'Actions',
                    (e: ScheduledEventRow) => (
                      <div className="row">
                        <button type="button" className="btn small" aria-label={`Invocations of event ${e.id}`} onClick={() => onShowInvocations?.(e.id)}>
                          Invocations
                        </button>
                        <button
                          type="button"
                          className="btn small danger"
                          aria-label={`Delete event ${e.id}`}
                          onClick={() =>
                            void run('Deleting…', `Deleted event ${e.id}`, async () => {
                              await callMetadata('delete_scheduled_event', { type: 'one_off', event_id: e.id });
                              await load();
                            })
                          }
                        >
                          Delete
                        </button>
                      </div>
                    ),
                  ],
                ] as const)
              : []),
          ]}
        />
      )}
      <Pager offset={offset} pageSize={PAGE} hasMore={offset + PAGE < count} onOffset={setOffset} previous="Previous events" next="Next events" />
    </section>
  );
}

function InvocationList({ kind, trigger, eventId }: { kind: 'cron' | 'one_off'; trigger: string | null; eventId: string | null }) {
  const [rows, setRows] = useState<InvocationRow[] | null>(null);
  const load = useCallback(async () => {
    const r = await callMetadata<{ invocations: InvocationRow[] }>('get_scheduled_event_invocations', {
      type: kind,
      ...(trigger !== null ? { trigger_name: trigger } : {}),
      ...(eventId !== null ? { event_id: eventId } : {}),
      pagination: { limit: 100, offset: 0 },
    });
    setRows(r.invocations);
  }, [kind, trigger, eventId]);
  const [status, reload] = useLoad(load);
  const label = eventId !== null ? `Invocations of event ${eventId}` : `Invocations of ${trigger ?? kind}`;
  return (
    <section aria-label={label}>
      {eventId !== null && <h2>{label}</h2>}
      <div className="row">
        <RefreshButton what="invocations" onClick={reload} />
      </div>
      <Status value={status} />
      {rows !== null && <InvocationTable rows={rows} empty="No invocations yet." />}
    </section>
  );
}

/** `YYYY-MM-DDTHH:MM` of the browser's local time, as a datetime-local input takes it. */
function localNow(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function OneOffEvents() {
  const [webhook, setWebhook] = useState('');
  const [at, setAt] = useState(localNow);
  const [payload, setPayload] = useState('');
  const [headers, setHeaders] = useState<HeaderRow[]>([]);
  const [comment, setComment] = useState('');
  const retry = useRetry(undefined);
  const [status, run] = useAction();
  const [listStatus, setListStatus] = useState<StatusValue>({ kind: 'idle' });
  const [reloadKey, setReloadKey] = useState(0);
  const [invocationsOf, setInvocationsOf] = useState<string | null>(null);
  return (
    <>
      <h1>One-off scheduled events</h1>
      <form
        className="editor"
        aria-label="Schedule an event"
        onSubmit={(e) => {
          e.preventDefault();
          void run('Scheduling…', '', async () => {
            const when = new Date(at);
            if (Number.isNaN(when.getTime())) throw new Error('Choose when the event is due');
            const value = parsePayload(payload);
            const r = await callMetadata<{ event_id: string }>('create_scheduled_event', {
              webhook: webhook.trim(),
              schedule_at: when.toISOString(),
              ...(value !== undefined ? { payload: value } : {}),
              headers: headerConfs(headers),
              retry_conf: retry.build(),
              ...(comment.trim() !== '' ? { comment: comment.trim() } : {}),
            });
            setReloadKey((k) => k + 1);
            return new Done(`Scheduled event ${r.event_id}`);
          });
        }}
      >
        <h2>Schedule an event</h2>
        <div className="row">
          <label htmlFor="oneoff-webhook">Webhook URL</label>
          <input id="oneoff-webhook" className="wide-input" value={webhook} onChange={(e) => setWebhook(e.target.value)} />
        </div>
        <div className="row">
          <label htmlFor="oneoff-at">Due at (your local time)</label>
          <input id="oneoff-at" type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} />
          <label htmlFor="oneoff-comment">Comment</label>
          <input id="oneoff-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="oneoff-payload">Payload (JSON, optional)</label>
          <textarea id="oneoff-payload" rows={3} spellCheck={false} value={payload} onChange={(e) => setPayload(e.target.value)} />
        </div>
        <HeadersEditor label="Webhook headers" rows={headers} onChange={setHeaders} />
        {retry.fields}
        <Status value={status} />
        <button type="submit" className="btn primary">
          Schedule event
        </button>
      </form>
      <h2>Events</h2>
      <Status value={listStatus} />
      <ScheduledEventList kind="one_off" trigger={null} reloadKey={reloadKey} onShowInvocations={setInvocationsOf} onStatus={setListStatus} />
      {invocationsOf !== null && <InvocationList key={invocationsOf} kind="one_off" trigger={null} eventId={invocationsOf} />}
    </>
  );
}
