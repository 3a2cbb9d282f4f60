/**
 * `list_source_kinds` (v2 compat: the console asks it for the kinds of
 * database it can add): every backend of the registry, named as v2 names
 * its built-in kinds (the operation prefix: `pg`, `mssql`, `bigquery`).
 */
import { allBackends } from '../../../backends/registry.ts';
import { defineOperation } from '../../define.ts';

/** The list-source-kinds operation: `{sources: [{kind, builtin, available}]}`. */
export const listSourceKinds = defineOperation<Record<string, never>>({
  mutates: false,
  schema: { type: 'object', additionalProperties: false },
  async run() {
    const sources = allBackends().map((b) => ({ kind: b.operationPrefix.replace(/_$/, ''), builtin: true, available: true }));
    return { response: { sources } };
  },
});
