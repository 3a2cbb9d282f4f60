/** Small shared pieces: a status line that screen readers announce, and a table of SQL results. */
import { useState } from 'react';
import { messageOf } from './api.ts';

export type StatusValue = { kind: 'idle' } | { kind: 'busy'; text: string } | { kind: 'ok'; text: string } | { kind: 'error'; text: string };

export function Status({ value }: { value: StatusValue }) {
  if (value.kind === 'idle') return <div className="status" role="status" />;
  if (value.kind === 'error')
    return (
      <div className="status error" role="alert">
        {value.text}
      </div>
    );
  return (
    <div className={`status ${value.kind === 'ok' ? 'ok' : 'muted'}`} role="status">
      {value.text}
    </div>
  );
}

/** Runs an action and reports it in a Status; returns [status, run]. */
export function useAction(): [StatusValue, (busyText: string, okText: string, action: () => Promise<unknown>) => Promise<boolean>] {
  const [status, setStatus] = useState<StatusValue>({ kind: 'idle' });
  const run = async (busyText: string, okText: string, action: () => Promise<unknown>): Promise<boolean> => {
    setStatus({ kind: 'busy', text: busyText });
    try {
      await action();
      setStatus({ kind: 'ok', text: okText });
      return true;
    } catch (e) {
      setStatus({ kind: 'error', text: messageOf(e) });
      return false;
    }
  };
  return [status, run];
}

export function ResultTable({ rows, label }: { rows: string[][]; label: string }) {
  const [head, ...body] = rows;
  if (head === undefined) return null;
  return (
    <table className="grid" aria-label={label}>
      <thead>
        <tr>
          {head.map((h, i) => (
            <th key={i} scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {body.map((r, i) => (
          <tr key={i}>
            {r.map((c, j) => (
              <td key={j} className={c === null ? 'null' : undefined}>
                {c === null ? 'NULL' : c}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
