/**
 * The list shapes the management pages share: a sidebar's list of links, a table whose first cell
 * names its row, and a destructive button that asks once. Accessible names are the callers' (the
 * browser tests find controls by them).
 */
import type { ReactNode } from 'react';

/** One link of a {@link NavList}. */
export interface NavItem {
  readonly key: string;
  readonly href: string;
  readonly current: boolean;
  readonly content: ReactNode;
}

/** A sidebar's links, the current one marked; with `empty`, that text replaces an empty list. */
export function NavList({ label, items, empty }: { label: string; items: readonly NavItem[]; empty?: string }) {
  if (items.length === 0 && empty !== undefined) return <p className="muted">{empty}</p>;
  return (
    <ul aria-label={label}>
      {items.map((i) => (
        <li key={i.key}>
          <a href={i.href} aria-current={i.current ? 'page' : undefined}>
            {i.content}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** A column of a {@link DataTable}: its header and what a row shows in it. */
export type Column<T> = readonly [string, (row: T) => ReactNode];

/**
 * A table of `rows`: `rowHeader`, when given, is the first column, its cells row headers; with
 * `empty`, that text replaces a table without rows.
 */
export function DataTable<T>({
  label,
  rows,
  rowKey,
  rowHeader,
  columns,
  empty,
  className = 'grid',
}: {
  label: string;
  rows: readonly T[];
  rowKey: (row: T, index: number) => string | number;
  rowHeader?: Column<T>;
  columns: ReadonlyArray<Column<T>>;
  empty?: string;
  className?: string;
}) {
  if (rows.length === 0 && empty !== undefined) return <p className="muted">{empty}</p>;
  return (
    <table className={className} aria-label={label}>
      <thead>
        <tr>
          {[...(rowHeader === undefined ? [] : [rowHeader]), ...columns].map(([h]) => (
            <th key={h} scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={rowKey(r, i)}>
            {rowHeader !== undefined && <th scope="row">{rowHeader[1](r)}</th>}
            {columns.map(([h, f]) => (
              <td key={h}>{f(r)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A destructive button that asks first: `ask` (named `askLabel` when given) turns into `confirm`
 * and "Keep it". The caller holds whether it is asking (a table asks for one row at a time).
 */
export function ConfirmButton({
  confirming,
  setConfirming,
  ask,
  askLabel,
  confirm,
  onConfirm,
  small = false,
}: {
  confirming: boolean;
  setConfirming: (asking: boolean) => void;
  ask: string;
  askLabel?: string;
  confirm: ReactNode;
  onConfirm: () => void;
  small?: boolean;
}) {
  const btn = small ? 'btn small' : 'btn';
  if (!confirming)
    return (
      <button type="button" className={`${btn} danger`} aria-label={askLabel} onClick={() => setConfirming(true)}>
        {ask}
      </button>
    );
  return (
    <>
      <button type="button" className={`${btn} danger`} onClick={onConfirm}>
        {confirm}
      </button>
      <button type="button" className={btn} onClick={() => setConfirming(false)}>
        Keep it
      </button>
    </>
  );
}
