/** The invocations of a cron trigger or of one scheduled event. */
import { useCallback, useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status } from '../../components.tsx';
import { InvocationTable, RefreshButton, useLoad, type InvocationRow } from '../../logs.tsx';

export function InvocationList({ kind, trigger, eventId }: { kind: 'cron' | 'one_off'; trigger: string | null; eventId: string | null }) {
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
