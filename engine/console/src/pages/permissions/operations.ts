/** The operations of the permission matrix and how much a role's permission for one allows. */
import type { PermissionEntry, TableEntry } from '../../metadata-state.tsx';

export const OPERATIONS = ['select', 'insert', 'update', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];

export function permissionOf(entry: TableEntry, role: string, op: Operation): PermissionEntry | undefined {
  return entry[`${op}_permissions`]?.find((p) => p.role === role);
}

/** How much a permission allows, for the matrix: all rows and columns, or less. */
export function summary(p: PermissionEntry | undefined, op: Operation, columnCount: number): 'none' | 'full' | 'partial' {
  if (p === undefined) return 'none';
  const perm = p.permission as { filter?: unknown; check?: unknown; columns?: unknown };
  const rows = op === 'insert' ? perm.check : perm.filter;
  const allRows = rows === undefined || JSON.stringify(rows) === '{}';
  const cols = perm.columns;
  const allColumns = op === 'delete' || cols === '*' || (Array.isArray(cols) && cols.length >= columnCount);
  return allRows && allColumns ? 'full' : 'partial';
}

/** A permission the engine found inconsistent (a column dropped outside it, say) shows so, not as what it would allow. */
export const MARK = { none: '—', full: '✔ full', partial: '◐ partial', inconsistent: '⚠ inconsistent' } as const;
