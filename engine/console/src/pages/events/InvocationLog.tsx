/** An event trigger's invocation log, paged. */
import { useCallback, useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status } from '../../components.tsx';
import { InvocationTable, Pager, RefreshButton, useLoad, type InvocationRow } from '../../logs.tsx';
import { PAGE } from './EventLog.tsx';

export function InvocationLog({ source, trigger }: { source: string; trigger: string }) {
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
