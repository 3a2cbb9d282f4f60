/**
 * `replace_metadata`, versions 1 and 2. Version 1 args are the document;
 * version 2 args are `{metadata, allow_inconsistent_metadata}`. When `version`
 * is omitted it is inferred from the args (a `metadata` key means 2). Any
 * inconsistency refuses the replacement (400 with `internal`) unless
 * `allow_inconsistent_metadata`, which answers `{is_consistent: false, ...}`.
 * Older document formats (version 1/2: tables at the top) become the
 * `default` source's tables.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { normalizeDocument, type SourceMetadata } from '../../document.ts';
import { findSource } from '../../edit.ts';
import { argPath, SUCCESS, type MetadataCall, type Operation, type RunContext } from '../../operation.ts';
import { replaceMetadataV2Args } from '../../schemas/args.ts';
import { documentSchema } from '../../schemas/document.ts';
import { assertValid } from '../../schemas/validate.ts';
import { wireInconsistencies } from './inconsistent-objects.ts';

type Loose = Record<string, unknown>;

function isObject(v: unknown): v is Loose {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** v2 compat: a version 1/2 document (tables at the top level) as version 3 with a `default` source. */
function upgradeOldFormat(raw: Loose, ctx: RunContext): Loose {
  if (raw['version'] === 3 || (raw['version'] === undefined && raw['sources'] !== undefined)) return raw;
  const { tables, functions, version: _v, ...rest } = raw;
  const current = findSource(ctx.state.doc, 'default');
  const configuration: SourceMetadata['configuration'] | undefined =
    current?.configuration ??
    (ctx.defaultDatabaseUrl === null ? undefined : { connection_info: { database_url: ctx.defaultDatabaseUrl } });
  const sources = configuration === undefined ? [] : [{ name: 'default', kind: 'postgres', tables: tables ?? [], functions: functions ?? [], configuration }];
  return { ...rest, version: 3, sources };
}

function parseDocumentArg(raw: unknown, ctx: RunContext, path: string): ReturnType<typeof normalizeDocument> {
  if (!isObject(raw)) throw new EngineError(ErrorCode.ParseFailed, 'expected Object', { path });
  const upgraded = upgradeOldFormat(raw, ctx);
  const valid = assertValid<Loose>(documentSchema, upgraded, path);
  const doc = normalizeDocument(valid);
  const names = new Set<string>();
  doc.sources.forEach((s, i) => {
    if (names.has(s.name)) {
      throw new EngineError(ErrorCode.AlreadyExists, `multiple sources named "${s.name}"`, { path: `${path}.sources[${i}].name` });
    }
    names.add(s.name);
  });
  return doc;
}

/** The replace-metadata operation. */
export const replaceMetadata: Operation = {
  mutates: true,
  async run(ctx, call: MetadataCall) {
    const raw = call.args ?? {};
    const version = call.version ?? (isObject(raw) && 'metadata' in raw && !('sources' in raw) ? 2 : 1);
    let docRaw: unknown = raw;
    let allow = false;
    let docPath = argPath(call);
    if (version === 2) {
      const a = assertValid<{ metadata: Loose; allow_inconsistent_metadata?: boolean }>(replaceMetadataV2Args, raw, argPath(call));
      docRaw = a.metadata;
      allow = a.allow_inconsistent_metadata === true;
      docPath = argPath(call, 'metadata');
    }
    const doc = parseDocumentArg(docRaw, ctx, docPath);
    const next = await ctx.commitEdit({ doc, touched: [], allowInconsistency: true, path: argPath(call) });
    const bad = next.catalog.inconsistencies;
    if (bad.length === 0) return { response: SUCCESS };
    if (!allow) {
      throw new EngineError(ErrorCode.Unexpected, 'cannot continue due to inconsistent metadata', {
        path: argPath(call),
        status: 400,
        internal: wireInconsistencies(bad),
      });
    }
    return { response: { is_consistent: false, inconsistent_objects: wireInconsistencies(bad) } };
  },
};
