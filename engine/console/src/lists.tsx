/**
 * The list shapes the management pages share: a sidebar's list of links and its source picker, an
 * item's tabs, a table whose first cell names its row, a destructive button that asks once, an
 * editor's save/delete buttons, and the row that adds a role to a permission matrix. Accessible names are the callers' (the browser
 * tests find controls by them).
 */
import { useState, type ReactNode } from 'react';
import { reasons, type InconsistencyTarget } from './inconsistency.ts';

/** One link of a {@link NavList}. */
export interface NavItem {
  readonly key: string;
  readonly href: string;
  readonly current: boolean;
  /** What the link shows: its key when absent. */
  readonly content?: ReactNode;
  /** Inconsistencies of what the link opens: flagged beside it. */
  readonly problems?: readonly InconsistencyTarget[];
}

/**
 * The mark of an inconsistent object (`what` names it): a link to the Metadata page, where the
 * objects are listed and dropped, whose name and tooltip give the reasons.
 */
export function InconsistentMark({ what, problems }: { what: string; problems: readonly InconsistencyTarget[] }) {
  if (problems.length === 0) return null;
  const why = reasons(problems);
  return (
    <a className="incons-mark" href="#/metadata" title={why} aria-label={`${what} is inconsistent: ${why}`}>
      ⚠
    </a>
  );
}

/** A sidebar's links, the current one marked (`label` names the list); with `empty`, that text replaces an empty list. */
export function NavList({ label, items, empty }: { label?: string; items: readonly NavItem[]; empty?: string }) {
  if (items.length === 0 && empty !== undefined) return <p className="muted">{empty}</p>;
  return (
    <ul aria-label={label}>
      {items.map((i) => (
        <li key={i.key}>
          <a href={i.href} aria-current={i.current ? 'page' : undefined}>
            {i.content ?? i.key}
          </a>
          {i.problems !== undefined && <InconsistentMark what={i.key} problems={i.problems} />}
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

/**
 * An editor's buttons: submit ("Create <what>" for a new item, "Save <what>"), then for an existing
 * one `children` and its deletion, asked once ("Delete <what>", "Confirm delete of <what> <name>").
 */
export function EditorButtons({
  what,
  existing,
  createVerb = 'Create',
  deleteVerb = 'Delete',
  deleteNoun = 'delete',
  confirming,
  setConfirming,
  onDelete,
  children,
}: {
  what: string;
  /** The item's name; null while it is being created. */
  existing: string | null;
  createVerb?: string;
  deleteVerb?: string;
  deleteNoun?: string;
  confirming: boolean;
  setConfirming: (asking: boolean) => void;
  onDelete: () => void;
  children?: ReactNode;
}) {
  return (
    <div className="row">
      <button type="submit" className="btn primary">
        {existing === null ? `${createVerb} ${what}` : `Save ${what}`}
      </button>
      {existing !== null && (
        <>
          {children}
          <ConfirmButton
            confirming={confirming}
            setConfirming={setConfirming}
            ask={`${deleteVerb} ${what}`}
            confirm={`Confirm ${deleteNoun} of ${what} ${existing}`}
            onConfirm={onDelete}
          />
        </>
      )}
    </div>
  );
}

/** Links to the views of one item (Modify, Events, …), the current one marked; `children` adds links after them. */
export function Tabs({
  label,
  tabs,
  current,
  href,
  children,
}: {
  label: string;
  tabs: ReadonlyArray<readonly [id: string, title: string]>;
  current: string;
  href: (id: string) => string;
  children?: ReactNode;
}) {
  return (
    <nav className="tabs" aria-label={label}>
      {tabs.map(([id, title]) => (
        <a key={id} href={href(id)} aria-current={current === id ? 'page' : undefined}>
          {title}
        </a>
      ))}
      {children}
    </nav>
  );
}

/** The sidebar's choice of source; `describe` is what an option shows (its name by default). */
export function SourcePicker({
  id,
  sources,
  value,
  onPick,
  describe = (s) => s.name,
}: {
  id: string;
  sources: ReadonlyArray<{ readonly name: string; readonly kind: string }>;
  value: string;
  onPick: (name: string) => void;
  describe?: (s: { readonly name: string; readonly kind: string }) => string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Source</label>
      <select id={id} value={value} onChange={(e) => onPick(e.target.value)}>
        {sources.map((s) => (
          <option key={s.name} value={s.name}>
            {describe(s)}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A row adding a role (not `admin`, not empty) to a role list: the column or row of a permission matrix. */
export function NewRoleForm({ id, onAdd }: { id: string; onAdd: (role: string) => void }) {
  const [role, setRole] = useState('');
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        const r = role.trim();
        if (r !== '' && r !== 'admin') onAdd(r);
        setRole('');
      }}
    >
      <label htmlFor={id}>New role</label>
      <input id={id} value={role} onChange={(e) => setRole(e.target.value)} />
      <button type="submit" className="btn small">
        Add role
      </button>
    </form>
  );
}
