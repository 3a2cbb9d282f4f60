/** An event trigger's event log (all / pending / processed, paged, redeliver) and its manual invocation. */
import { useCallback, useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Done, JsonCell, LogTable, Status } from '../../components.tsx';
import { type EventTriggerEntry } from '../../metadata-state.tsx';
import { Pager, RefreshButton, useLoad } from '../../logs.tsx';

interface EventRow {
  readonly id: string;
  readonly payload: { op?: string; data?: unknown } | null;
  readonly delivered: boolean;
  readonly error: boolean;
  readonly tries: number;
  readonly created_at: string;
  readonly next_retry_at: string | null;
}

/** Rows per page of the event and invocation logs. */
export const PAGE = 20;

function eventState(e: EventRow): string {
  return e.delivered ? 'delivered' : e.error ? 'failed' : e.tries > 0 ? 'retrying' : 'pending';
}

export function EventLog({ source, trigger }: { source: string; trigger: EventTriggerEntry }) {
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
