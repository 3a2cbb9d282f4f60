/**
 * Inherited roles: conditions under which cells of a view are visible (the
 * view's `redact`), for the places that read a cell other than selecting
 * it: join columns of relationships (both ends), sort keys and aggregate
 * arguments reached through a relationship. See Note [Cells a sort key reads]
 * in ir/order-by.ts.
 */
import type * as ir from '../../ir/index.ts';
import { andAll, isTrue } from '../../ir/bool-exp.ts';
import type { TableView } from '../schema/table-view.ts';

/** Where every one of `columns` of `view` is visible; null when always. */
export function columnsVisible(view: TableView, columns: readonly string[]): ir.BoolExp | null {
  if (view.redact === null) return null;
  const conds = columns.map((c) => view.redact?.get(c) ?? null);
  const all = andAll(conds);
  return isTrue(all) ? null : all;
}

/** Visibility of the join columns a relationship reads on its starting row (`local` of the mapping). */
export function localKeysVisible(view: TableView, mapping: ir.ColumnMapping): ir.BoolExp | null {
  return columnsVisible(
    view,
    mapping.map(([local]) => local),
  );
}

/** Visibility of the join columns a relationship reads on its target rows (`remote` of the mapping). */
export function remoteKeysVisible(target: TableView, mapping: ir.ColumnMapping): ir.BoolExp | null {
  return columnsVisible(
    target,
    mapping.map(([, remote]) => remote),
  );
}

/** `exp` with the optional `visible` field set when there is a condition. */
export function withVisible<T extends object>(exp: T, visible: ir.BoolExp | null): T & { visible?: ir.BoolExp } {
  return visible === null ? exp : { ...exp, visible };
}
