/** A root field of an operation, as the planner sees it. */
import type { MutationRootField } from './mutation.ts';
import type { AggregateSelect, Select } from './select.ts';

/** A database read answered by one source. */
export type DbRootField =
  | { readonly kind: 'select'; readonly alias: string; readonly source: string; readonly select: Select }
  | { readonly kind: 'aggregate'; readonly alias: string; readonly source: string; readonly select: AggregateSelect }
  /** A source's root fields under its customization namespace: `{"<ns>": {<fields>}}`, all of that source. */
  | { readonly kind: 'namespace'; readonly alias: string; readonly source: string; readonly fields: readonly RootField[] };

/** A root field whose JSON is known when the plan is built. */
export interface StaticRootField {
  readonly kind: 'static';
  readonly alias: string;
  /** JSON text of the value (`"query_root"`, an introspection result). */
  readonly json: string;
}

/** A root field of a query or subscription. */
export type QueryRootField = DbRootField | StaticRootField;

/** Any root field. */
export type RootField = QueryRootField | MutationRootField;

/** True when `f` writes (a mutation field, or a namespace holding one). */
export function isMutationField(f: RootField): boolean {
  return f.kind === 'mutation' || (f.kind === 'namespace' && f.fields.some(isMutationField));
}
