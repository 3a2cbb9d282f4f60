/**
 * The allow-list: `add_collection_to_allowlist`,
 * `update_scope_of_collection_in_allowlist`, `drop_collection_from_allowlist`.
 * Enforced by the `allow` request step when the allow-list is enabled
 * (execute/allow.ts, Note [Allow-list matching] in catalog/normalize-document.ts).
 * v2 compat: adding a collection already in the allow-list, in any scope,
 * changes nothing; the legacy /v1/query name takes only `collection`.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { AllowlistEntry, AllowlistScope } from '../../../model/document.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { nameSchema } from '../../../model/schemas/common.ts';
import { allowlistScopeSchema } from '../../../model/schemas/query-collections.ts';
import { requireCollection } from './collections.ts';

/** `add_collection_to_allowlist`. */
export const addCollectionToAllowlist = defineOperation<{ collection: string; scope?: AllowlistScope }>({
  mutates: true,
  schema: { type: 'object', required: ['collection'], properties: { collection: nameSchema, scope: allowlistScopeSchema }, additionalProperties: false },
  legacyArgs(raw, call) {
    if (typeof raw === 'object' && raw !== null && 'scope' in raw) {
      throw new EngineError(ErrorCode.ParseFailed, 'the legacy add_collection_to_allowlist takes only "collection"; use /v1/metadata for a scope', {
        path: argPath(call, 'scope'),
      });
    }
    return raw;
  },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    requireCollection(doc, args.collection, call, 'collection');
    if (doc.allowlist.some((a) => a.collection === args.collection)) return { response: SUCCESS };
    const entry: AllowlistEntry = { collection: args.collection, scope: normalizeScope(args.scope) };
    await ctx.commitEdit({
      doc: { ...doc, allowlist: [...doc.allowlist, entry] },
      touched: [{ kind: 'allowlist', collection: args.collection }],
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});

/** `update_scope_of_collection_in_allowlist`: the same as dropping the entry and adding it with the new scope. */
export const updateScopeOfCollectionInAllowlist = defineOperation<{ collection: string; scope: AllowlistScope }>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['collection', 'scope'],
    properties: { collection: nameSchema, scope: allowlistScopeSchema },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    requireEntry(doc.allowlist, args.collection, argPath(call, 'collection'));
    const allowlist = doc.allowlist.map((a) => (a.collection === args.collection ? { collection: a.collection, scope: normalizeScope(args.scope) } : a));
    await ctx.commitEdit({ doc: { ...doc, allowlist }, touched: [{ kind: 'allowlist', collection: args.collection }], path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** `drop_collection_from_allowlist`. */
export const dropCollectionFromAllowlist = defineOperation<{ collection: string }>({
  mutates: true,
  schema: { type: 'object', required: ['collection'], properties: { collection: nameSchema }, additionalProperties: false },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    requireEntry(doc.allowlist, args.collection, argPath(call, 'collection'));
    await ctx.commitEdit({ doc: { ...doc, allowlist: doc.allowlist.filter((a) => a.collection !== args.collection) }, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});

function requireEntry(list: readonly AllowlistEntry[], collection: string, path: string): void {
  if (!list.some((a) => a.collection === collection)) {
    throw new EngineError(ErrorCode.NotExists, `query collection "${collection}" is not in the allow-list`, { path });
  }
}

/** The scope as stored: `{global: true}` by default; roles only with `global: false`. */
function normalizeScope(scope: AllowlistScope | undefined): AllowlistScope {
  if (scope === undefined || scope.global) return { global: true };
  return { global: false, roles: [...(scope.roles ?? [])] };
}
