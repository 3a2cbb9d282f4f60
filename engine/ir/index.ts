/**
 * The intermediate representation between GraphQL and SQL. Import as a
 * namespace: `import type * as ir from '../ir/index.ts'`, so names read
 * `ir.Select`, `ir.BoolExp`.
 */
export type * from './value.ts';
export type * from './bool-exp.ts';
export type * from './order-by.ts';
export type * from './select.ts';
export type * from './connection.ts';
export type * from './computed-field.ts';
export type * from './mutation.ts';
export type * from './root.ts';
export type * from './table.ts';
export type * from './remote.ts';
