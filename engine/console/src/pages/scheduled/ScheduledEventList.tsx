/** The stored events of a cron trigger, or the one-off events, by status and paged, with their invocations on demand. */
import { useCallback, useEffect, useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { JsonCell, LogTable, Status, type StatusValue } from '../../components.tsx';
import { Pager, RefreshButton, useLoad } from '../../logs.tsx';

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

export function ScheduledEventList({
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
