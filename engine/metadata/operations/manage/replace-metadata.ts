/**
 * `replace_metadata`, versions 1 and 2. Version 1 args are the document;
 * version 2 args are `{metadata, allow_inconsistent_metadata}`. When `version`
 * is omitted it is inferred from the args (a `metadata` key means 2). Any
 * inconsistency refuses the replacement (400 with `internal`) unless
 * `allow_inconsistent_metadata`, which answers `{is_consistent: false, ...}`.
 * Older document formats (version 1/2: tables at the top) become the
 * `default` source's tables.
 */
import { keepUnexportedCron } from '../scheduled/unexported-cron.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError, isEngineError } from '../../../errors/engine-error.ts';
import { normalizeDocument, type SourceMetadata } from '../../../model/document.ts';
import { findSource, keepEqualEntries } from '../../edit.ts';
import { argPath, SUCCESS, type MetadataCall, type Operation, type RunContext } from '../../operation.ts';
import { replaceMetadataV2Args } from '../../../model/schemas/args.ts';
import { DOCUMENT_VERSIONS } from '../../../model/schemas/document.ts';
import { engineDocumentSchemas } from '../../document-schemas.ts';
import { assertValid } from '../../../model/schemas/validate.ts';
import { wireInconsistencies } from './inconsistent-objects.ts';

type Loose = Record<string, unknown>;

function isObject(v: unknown): v is Loose {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** v2 compat: the message for a version outside `allowed`. */
function versionError(allowed: readonly number[], got: unknown, path: string): EngineError {
  const list = allowed.length === 2 ? `${allowed[0]} or ${allowed[1]}` : `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}`;
  return new EngineError(ErrorCode.ParseFailed, `expected ${list}, encountered ${JSON.stringify(got) ?? 'nothing'}`, { path });
}

/** Whether `raw` is a version 1/2 document (tables at the top level). */
function isOldFormat(raw: Loose): boolean {
  return !(raw['version'] === 3 || (raw['version'] === undefined && raw['sources'] !== undefined));
}

/**
 * v2 compat: a function of a version 1/2 document. Version 1 lists functions by name
 * (`"search_articles"`, in `public`) or as `{schema, name}` (v2's QualifiedFunction);
 * version 2 as `{function, configuration}`, as version 3 does. Anything else is left for
 * the schema to refuse.
 */
function upgradeOldFunction(f: unknown): unknown {
  if (typeof f === 'string') return { function: { schema: 'public', name: f } };
  if (isObject(f) && !('function' in f) && typeof f['name'] === 'string') return { function: f };
  return f;
}

/** v2 compat: a version 1/2 document (tables at the top level) as version 3 with a `default` source. */
function upgradeOldFormat(raw: Loose, ctx: RunContext): Loose {
  const { tables, functions: given, version: _v, ...others } = raw;
  const functions = Array.isArray(given) ? given.map(upgradeOldFunction) : given;
  // Version 1's `query_templates` (long gone from v2, which reads past them): an empty list is
  // nothing; a non-empty one stays for the schema to refuse, as Engine cannot run them.
  const { query_templates: templates, ...rest } = others;
  if (templates !== undefined && !(Array.isArray(templates) && templates.length === 0)) rest['query_templates'] = templates;
  const current = findSource(ctx.state.doc, 'default');
  const configuration: SourceMetadata['configuration'] | undefined =
    current?.configuration ?? (ctx.defaultDatabaseUrl === null ? undefined : { connection_info: { database_url: ctx.defaultDatabaseUrl } });
  const sources = configuration === undefined ? [] : [{ name: 'default', kind: 'postgres', tables: tables ?? [], functions: functions ?? [], configuration }];
  return { ...rest, version: 3, sources };
}

function parseDocumentArg(raw: unknown, ctx: RunContext, path: string): ReturnType<typeof normalizeDocument> {
  if (!isObject(raw)) {
    throw new EngineError(ErrorCode.ParseFailed, `expected Object, encountered ${raw === null ? 'Null' : Array.isArray(raw) ? 'Array' : typeof raw}`, { path });
  }
  // v2 compat: an unknown document version is refused, never read as version 1 (which untracked everything).
  const v = raw['version'];
  if (v !== undefined && !DOCUMENT_VERSIONS.includes(v as 1 | 2 | 3)) throw versionError(DOCUMENT_VERSIONS, v, `${path}.version`);
  const old = isOldFormat(raw);
  if (old && raw['sources'] !== undefined) {
    throw new EngineError(ErrorCode.ParseFailed, `unexpected key "sources" in a version ${String(v ?? 1)} document`, { path: `${path}.sources` });
  }
  const upgraded = old ? upgradeOldFormat(raw, ctx) : raw;
  let valid: Loose;
  try {
    valid = assertValid<Loose>(engineDocumentSchemas.document, upgraded, path);
  } catch (e) {
    // A version 1/2 document is checked as version 3: report paths in the document as sent.
    if (!old || !isEngineError(e)) throw e;
    const sent = e.path.replace(`${path}.sources[0].tables`, `${path}.tables`).replace(`${path}.sources[0].functions`, `${path}.functions`);
    throw new EngineError(e.code, e.message, { path: sent });
  }
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
    const raw = call.args;
    // v2 compat: args are required; a missing or null document is not an empty one.
    if (!isObject(raw)) {
      const got = raw === undefined ? 'nothing' : raw === null ? 'Null' : Array.isArray(raw) ? 'Array' : typeof raw;
      throw new EngineError(ErrorCode.ParseFailed, `expected Object, encountered ${got}`, { path: argPath(call) });
    }
    if (call.version !== undefined && call.version !== 1 && call.version !== 2) {
      throw versionError([1, 2], call.version, call.path === '$' ? '$.version' : `${call.path}.version`);
    }
    const version = call.version ?? ('metadata' in raw && !('sources' in raw) ? 2 : 1);
    let docRaw: unknown = raw;
    let allow = false;
    let docPath = argPath(call);
    if (version === 2) {
      const a = assertValid<{ metadata: Loose; allow_inconsistent_metadata?: boolean }>(replaceMetadataV2Args, raw, argPath(call));
      docRaw = a.metadata;
      allow = a.allow_inconsistent_metadata === true;
      docPath = argPath(call, 'metadata');
    }
    const doc = keepEqualEntries(ctx.state.doc, keepUnexportedCron(ctx.state.doc, parseDocumentArg(docRaw, ctx, docPath)));
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
