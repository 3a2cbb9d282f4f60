/**
 * The contributors of a role schema's root fields, in schema order.
 *
 * Note [Root-field contributors]
 * A role schema is the root fields of every kind of metadata object that
 * gives some: tables (`<t>`, `<t>_by_pk`, `<t>_aggregate`, the mutations),
 * tracked functions, actions and remote schemas. Each kind is a
 * RootFieldContributor (root-field-contributor.ts) that answers its fields
 * per root type and its part of the role fingerprint, and build-schema.ts
 * iterates the list instead of naming tables and functions: a new kind is
 * one contributor added here, and it cannot forget the fingerprint, whose
 * parts decide which roles share a schema (Note [Shared role types] in
 * role-access.ts). Per root, the fields are the contributors' fields in list
 * order, so the printed schema of every role is the one the hard-coded
 * builder printed (test/unit/graphql printed-schema hashes). The rules
 * fingerprint (which compiled permissions a role shares) stays table- and
 * function-based: it describes RoleAccess, which contributors only read.
 * Contributors share the role's SchemaTypes, so a function returning rows of
 * a table uses that table's types, as a remote relationship will.
 */
import { ACTION_ROOT_FIELDS } from './action-root-fields.ts';
import { AGGREGATE_ONLY_ROOT_FIELDS } from './aggregate-only-fields.ts';
import { functionRootFields } from './function-fields.ts';
import { mutationRootFields } from './mutation-root.ts';
import { functionFingerprint, tableFingerprint } from './role-fingerprint.ts';
import type { RootFieldContributor } from './root-field-contributor.ts';
import { tableSelectRootFields } from './table-root-fields.ts';
import { tableStreamRootFields } from './stream-fields.ts';
import { REMOTE_ROOT_FIELDS } from './remote-root-fields.ts';

/** Tracked tables: select, select-by-pk and aggregate on query_root; insert, update, delete on mutation_root; `<t>_stream` on subscription_root. */
export const TABLE_ROOT_FIELDS: RootFieldContributor = {
  name: 'tables',
  generated: true,
  rootFields: (input, root) =>
    root === 'query'
      ? tableSelectRootFields(input.access.tables.values(), input.types)
      : root === 'mutation'
        ? mutationRootFields(input.access.mutations.values(), input.types, input.mutationCarry)
        : tableStreamRootFields(input.access.tables.values(), input.types),
  fingerprint: (_catalog, _role, access) => tableFingerprint(access),
};

/** Tracked functions: `<fn>` and `<fn>_aggregate` on the root they are exposed as. */
export const FUNCTION_ROOT_FIELDS: RootFieldContributor = {
  name: 'functions',
  generated: true,
  rootFields: (input, root) =>
    root === 'subscription'
      ? {}
      : functionRootFields(
          input.catalog,
          input.access.tables,
          input.types,
          { role: input.role, isAdmin: input.access.isAdmin, inferFunctionPermissions: input.inferFunctionPermissions },
          root,
        ),
  fingerprint: (catalog, role) => functionFingerprint(catalog, role),
};

/** Every contributor, in the order their fields appear on each root type. */
export const ROOT_FIELD_CONTRIBUTORS: readonly RootFieldContributor[] = [
  TABLE_ROOT_FIELDS,
  AGGREGATE_ONLY_ROOT_FIELDS,
  FUNCTION_ROOT_FIELDS,
  ACTION_ROOT_FIELDS,
  REMOTE_ROOT_FIELDS,
];
