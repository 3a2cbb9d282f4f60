/** Small shared pieces: a status line that screen readers announce, and a table of SQL results. */
import { useState, type ReactNode } from 'react';
import { messageOf } from './api.ts';
import { DataTable, type Column } from './lists.tsx';

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

/** What an action of useAction may resolve to when its success message is known only at its end. */
export class Done {
  constructor(readonly text: string) {}
}

/** Runs an action and reports it in a Status (an action resolving to a Done says its own success message); returns [status, run]. */
export function useAction(): [StatusValue, (busyText: string, okText: string, action: () => Promise<unknown>) => Promise<boolean>] {
  const [status, setStatus] = useState<StatusValue>({ kind: 'idle' });
  const run = async (busyText: string, okText: string, action: () => Promise<unknown>): Promise<boolean> => {
    setStatus({ kind: 'busy', text: busyText });
    try {
      const result = await action();
      setStatus({ kind: 'ok', text: result instanceof Done ? result.text : okText });
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

/** One header row of a webhook's headers editor: a literal value, or the name of an environment variable of the engine. */
export interface HeaderRow {
  name: string;
  value: string;
  fromEnv: boolean;
}

export function headerRows(headers: ReadonlyArray<{ name: string; value?: string; value_from_env?: string }> | null | undefined): HeaderRow[] {
  return (headers ?? []).map((h) =>
    h.value_from_env !== undefined ? { name: h.name, value: h.value_from_env, fromEnv: true } : { name: h.name, value: h.value ?? '', fromEnv: false },
  );
}

export function headerConfs(rows: readonly HeaderRow[]): Array<{ name: string; value?: string; value_from_env?: string }> {
  return rows
    .filter((r) => r.name.trim() !== '')
    .map((r) => (r.fromEnv ? { name: r.name.trim(), value_from_env: r.value } : { name: r.name.trim(), value: r.value }));
}

/** The headers a webhook is sent with; `label` names the group (and prefixes each control's accessible name). */
export function HeadersEditor({ label, rows, onChange }: { label: string; rows: HeaderRow[]; onChange: (rows: HeaderRow[]) => void }) {
  const set = (i: number, patch: Partial<HeaderRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset>
      <legend>{label}</legend>
      {rows.map((r, i) => (
        <div className="row" key={i}>
          <input aria-label={`${label} ${i + 1} name`} placeholder="name" value={r.name} onChange={(e) => set(i, { name: e.target.value })} />
          <input
            aria-label={`${label} ${i + 1} ${r.fromEnv ? 'environment variable' : 'value'}`}
            placeholder={r.fromEnv ? 'ENV_VAR_NAME' : 'value'}
            value={r.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <label>
            <input type="checkbox" checked={r.fromEnv} onChange={(e) => set(i, { fromEnv: e.target.checked })} /> from the environment
          </label>
          <button
            type="button"
            className="btn small"
            aria-label={`Remove ${label.toLowerCase()} ${i + 1}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
          >
            ×
          </button>
        </div>
      ))}
      <button type="button" className="btn small" onClick={() => onChange([...rows, { name: '', value: '', fromEnv: false }])}>
        Add header
      </button>
    </fieldset>
  );
}

/**
 * The whole number typed in a field (limits, timeouts, retries, pool sizes), read when it is used:
 * only decimal digits (surrounding spaces aside), so `1e2`, `0x10` or `7.5` are refused with the
 * reason rather than read as something else. Note [Typed text becomes a value once] in introspect.ts.
 */
export function wholeNumber(text: string, what: string, min: number): number {
  const t = text.trim();
  const n = Number(t);
  if (!/^\d+$/.test(t) || !Number.isSafeInteger(n) || n < min) throw new Error(`${what} must be a whole number, at least ${min}, not ${JSON.stringify(text)}`);
  return n;
}

/** A webhook's retry settings as the editor reads them (whole numbers). */
export interface RetrySettings {
  readonly retries: number;
  readonly interval: number;
  readonly timeout: number;
  /** Scheduled events only: how late a missed event may still be delivered. */
  readonly tolerance?: number;
}

/**
 * The "Retries" fields of a webhook (event trigger, scheduled event; `idPrefix` keeps their ids
 * apart), with tolerance when `initial` has one. `build` checks and returns what they say.
 */
export function useRetryFields(idPrefix: string, initial: RetrySettings): { build: () => RetrySettings; fields: ReactNode } {
  const [retries, setRetries] = useState(String(initial.retries));
  const [interval, setIntervalText] = useState(String(initial.interval));
  const [timeout, setTimeoutText] = useState(String(initial.timeout));
  const [tolerance, setTolerance] = useState(initial.tolerance === undefined ? null : String(initial.tolerance));
  const build = (): RetrySettings => {
    return {
      retries: wholeNumber(retries, 'Retries', 0),
      interval: wholeNumber(interval, 'The retry interval', 0),
      timeout: wholeNumber(timeout, 'The timeout', 1),
      ...(tolerance === null ? {} : { tolerance: wholeNumber(tolerance, 'The tolerance', 1) }),
    };
  };
  const fields = (
    <fieldset>
      <legend>Retries</legend>
      {/* Label above field, side by side: four labelled fields do not fit one row at 1280 px. */}
      <div className="settings-grid">
        <div className="field">
          <label htmlFor={`${idPrefix}-retries`}>Number of retries</label>
          <input id={`${idPrefix}-retries`} inputMode="numeric" size={4} value={retries} onChange={(e) => setRetries(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${idPrefix}-interval`}>Retry interval (seconds)</label>
          <input id={`${idPrefix}-interval`} inputMode="numeric" size={4} value={interval} onChange={(e) => setIntervalText(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${idPrefix}-timeout`}>Timeout (seconds)</label>
          <input id={`${idPrefix}-timeout`} inputMode="numeric" size={4} value={timeout} onChange={(e) => setTimeoutText(e.target.value)} />
        </div>
        {tolerance !== null && (
          <div className="field">
            <label htmlFor={`${idPrefix}-tolerance`}>Tolerance (seconds)</label>
            <input id={`${idPrefix}-tolerance`} inputMode="numeric" size={6} value={tolerance} onChange={(e) => setTolerance(e.target.value)} />
          </div>
        )}
      </div>
    </fieldset>
  );
  return { build, fields };
}

/** A table of log rows (events, invocations): `columns` pick what each row shows. */
export function LogTable<T>({ label, rows, columns, empty }: { label: string; rows: readonly T[]; columns: ReadonlyArray<Column<T>>; empty: string }) {
  return <DataTable label={label} rows={rows} rowKey={(_, i) => i} columns={columns} empty={empty} />;
}

/** A JSON value, shortened for a table cell; the whole value is in the title. */
export function JsonCell({ value, max = 120 }: { value: unknown; max?: number }) {
  const text = value === undefined ? '' : JSON.stringify(value);
  return <code title={text.length > max ? text : undefined}>{text.length > max ? `${text.slice(0, max)}…` : text}</code>;
}
