/**
 * The log views of event triggers and scheduled events: loading with a Status and a refresh
 * button, paging, and the invocation table (both APIs answer invocations in one shape).
 */
import { useEffect } from 'react';
import { JsonCell, LogTable, useAction, type StatusValue } from './components.tsx';

/**
 * Runs `load` now and whenever it (or `reloadKey`) changes, reported in a Status. Returns that
 * status, `reload`, and the action runner for the view's other buttons (their outcome shows in the
 * same Status).
 */
export function useLoad(
  load: () => Promise<void>,
  reloadKey = 0,
): readonly [StatusValue, () => void, (busyText: string, okText: string, action: () => Promise<unknown>) => Promise<boolean>] {
  const [status, run] = useAction();
  const reload = (): void => void run('Loading…', '', load);
  useEffect(reload, [load, reloadKey]);
  return [status, reload, run];
}

/** "Refresh <what>". */
export function RefreshButton({ what, onClick }: { what: string; onClick: () => void }) {
  return (
    <button type="button" className="btn small" onClick={onClick}>
      Refresh {what}
    </button>
  );
}

/** Previous/next page buttons over `offset`, `pageSize` rows a page. */
export function Pager({
  offset,
  pageSize,
  hasMore,
  onOffset,
  previous,
  next,
}: {
  offset: number;
  pageSize: number;
  hasMore: boolean;
  onOffset: (offset: number) => void;
  previous: string;
  next: string;
}) {
  return (
    <div className="row pager">
      <button type="button" className="btn small" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
        {previous}
      </button>
      <button type="button" className="btn small" disabled={!hasMore} onClick={() => onOffset(offset + pageSize)}>
        {next}
      </button>
    </div>
  );
}

/** One delivery attempt of an event (event trigger or scheduled). */
export interface InvocationRow {
  readonly id: string;
  readonly event_id: string;
  readonly status: number | null;
  readonly request: unknown;
  readonly response: unknown;
  readonly created_at: string;
}

/** The invocation log table. */
export function InvocationTable({ rows, empty }: { rows: readonly InvocationRow[]; empty: string }) {
  return (
    <LogTable
      label="Invocation log"
      rows={rows}
      empty={empty}
      columns={[
        ['Invocation', (r) => <code>{r.id}</code>],
        ['Event', (r) => <code>{r.event_id}</code>],
        ['Created', (r) => r.created_at],
        ['HTTP status', (r) => (r.status === null ? 'no answer' : r.status)],
        ['Request', (r) => <JsonCell value={r.request} max={60} />],
        ['Response', (r) => <JsonCell value={r.response} max={60} />],
      ]}
    />
  );
}
