/**
 * The metadata directory in v2's layout (config version 3), both ways: a metadata document (the
 * wire JSON of `export_metadata`) → files, and a directory (written by this command or by v2's
 * client) → the document for `replace_metadata`.
 *
 * Note [v2 metadata directory]
 * One file per top-level key, named as v2 names it (`allowlist` → `allow_list.yaml`; actions and
 * custom types → `actions.yaml` + `actions.graphql`, see Note [Actions split like v2]); every file
 * is written, empty ones as `[]` or `{}`, as v2 does. Sources go to `databases/databases.yaml`,
 * whose `tables` and `functions` are `"!include <source>/tables/tables.yaml"`, a list of
 * `"!include <schema>_<name>.yaml"`, one file per table (functions likewise, only when there are
 * any). As in v2, an include is the `!include` tag or a string starting with `!include `; its path
 * is relative to the including file's directory; a `.yaml` file is parsed (and may include in
 * turn), any other file is read as a string. Unlike v2, a string merely containing `!include`
 * elsewhere is left alone. Top-level keys v2 does not know are written to `<key>.yaml` and read back
 * from any other top-level `.yaml` file, so nothing of the document is lost on the way.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify, type ScalarTag } from 'yaml';
import { actionsFromFiles, actionsToSdl, actionsYaml } from './actions-sdl.ts';
import { UsageError } from './output.ts';

type Obj = Record<string, unknown>;

/** The file of each top-level key v2 writes one for, in v2's order, and its empty form. */
const TOP_LEVEL_FILES: ReadonlyArray<{ readonly key: string; readonly file: string; readonly empty: 'list' | 'map' }> = [
  { key: 'remote_schemas', file: 'remote_schemas.yaml', empty: 'list' },
  { key: 'query_collections', file: 'query_collections.yaml', empty: 'list' },
  { key: 'allowlist', file: 'allow_list.yaml', empty: 'list' },
  { key: 'cron_triggers', file: 'cron_triggers.yaml', empty: 'list' },
  { key: 'api_limits', file: 'api_limits.yaml', empty: 'map' },
  { key: 'rest_endpoints', file: 'rest_endpoints.yaml', empty: 'list' },
  { key: 'inherited_roles', file: 'inherited_roles.yaml', empty: 'list' },
  { key: 'graphql_schema_introspection', file: 'graphql_schema_introspection.yaml', empty: 'map' },
  { key: 'network', file: 'network.yaml', empty: 'map' },
  { key: 'metrics_config', file: 'metrics_config.yaml', empty: 'map' },
  { key: 'opentelemetry', file: 'opentelemetry.yaml', empty: 'map' },
  { key: 'backend_configs', file: 'backend_configs.yaml', empty: 'map' },
];

/** Keys written by dedicated files (not by TOP_LEVEL_FILES). */
const SPECIAL_KEYS = new Set(['version', 'sources', 'actions', 'custom_types']);
const SPECIAL_FILES = new Set(['version.yaml', 'actions.yaml']);

/** The source keys in v2's order (its `Source` struct); others follow, then tables and functions. */
const SOURCE_KEY_ORDER = ['name', 'kind', 'configuration', 'query_tags', 'customization', 'health_check', 'custom_return_types', 'native_queries'];

/** YAML as v2's encoder writes it: two-space indent, no folding of long lines. */
export function toYaml(value: unknown): string {
  return stringify(value, { indent: 2, lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false });
}

/** The file name v2 gives a table or function: `<schema>_<name>.yaml` (`<dataset>_<name>` on BigQuery). */
export function objectFileName(qualified: unknown): string {
  if (typeof qualified === 'string') return `${qualified}.yaml`;
  const q = (qualified ?? {}) as Obj;
  const ns = q['schema'] ?? q['dataset'] ?? q['database'];
  return typeof ns === 'string' ? `${ns}_${String(q['name'])}.yaml` : `${String(q['name'])}.yaml`;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v as Obj).length === 0;
}

/** The metadata document → files (paths relative to the metadata directory, `/`-separated). */
export function metadataToFiles(doc: Obj): Map<string, string> {
  const files = new Map<string, string>();
  files.set('version.yaml', toYaml({ version: doc['version'] ?? 3 }));
  const sources = Array.isArray(doc['sources']) ? (doc['sources'] as Obj[]) : [];
  const databases = sources.map((s) => {
    const name = String(s['name']);
    const out: Obj = {};
    for (const k of SOURCE_KEY_ORDER) if (s[k] !== undefined) out[k] = s[k];
    for (const [k, v] of Object.entries(s)) if (!(k in out) && k !== 'tables' && k !== 'functions') out[k] = v;
    const tables = Array.isArray(s['tables']) ? (s['tables'] as Obj[]) : [];
    const tableIncludes = tables.map((t) => {
      const file = objectFileName(t['table']);
      files.set(`databases/${name}/tables/${file}`, toYaml(t));
      return `!include ${file}`;
    });
    files.set(`databases/${name}/tables/tables.yaml`, toYaml(tableIncludes));
    out['tables'] = `!include ${name}/tables/tables.yaml`;
    const functions = Array.isArray(s['functions']) ? (s['functions'] as Obj[]) : [];
    if (functions.length > 0) {
      const fnIncludes = functions.map((f) => {
        const file = objectFileName(f['function']);
        files.set(`databases/${name}/functions/${file}`, toYaml(f));
        return `!include ${file}`;
      });
      files.set(`databases/${name}/functions/functions.yaml`, toYaml(fnIncludes));
      out['functions'] = `!include ${name}/functions/functions.yaml`;
    }
    return out;
  });
  files.set('databases/databases.yaml', toYaml(databases));
  const actions = Array.isArray(doc['actions']) ? (doc['actions'] as Obj[]) : [];
  const customTypes = (doc['custom_types'] ?? null) as Obj | null;
  files.set('actions.yaml', toYaml(actionsYaml(actions, customTypes)));
  files.set('actions.graphql', actionsToSdl(actions, customTypes));
  for (const { key, file, empty } of TOP_LEVEL_FILES) {
    const v = doc[key];
    files.set(file, toYaml(v === undefined || v === null ? (empty === 'list' ? [] : {}) : v));
  }
  const known = new Set([...SPECIAL_KEYS, ...TOP_LEVEL_FILES.map((f) => f.key)]);
  for (const [k, v] of Object.entries(doc)) if (!known.has(k)) files.set(`${k}.yaml`, toYaml(v));
  return files;
}

/** Replaces the metadata directory's contents with `files` (v2's export does the same). */
export async function writeMetadataDir(dir: string, files: ReadonlyMap<string, string>): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  for (const [rel, text] of files) {
    const p = path.join(dir, ...rel.split('/'));
    await mkdir(path.dirname(p), { recursive: true });
    await writeFile(p, text);
  }
}

/** An `!include` tag's operand, resolved after parsing. */
class Include {
  readonly file: string;
  constructor(file: string) {
    this.file = file;
  }
}

const includeTag: ScalarTag = { tag: '!include', resolve: (value: string) => new Include(value.trim()) };

/** Parses YAML text of `file`, mapping errors to a UsageError naming the file. */
function parseYamlFile(text: string, file: string): unknown {
  try {
    return parseYaml(text, { customTags: [includeTag], uniqueKeys: true });
  } catch (e) {
    throw new UsageError(`${file}: not valid YAML: ${(e as Error).message}`);
  }
}

/** Reads `file` and resolves its includes (Note [v2 metadata directory]). */
async function readYamlFile(file: string, chain: readonly string[] = []): Promise<unknown> {
  if (chain.includes(file)) throw new UsageError(`${file}: includes itself (through ${chain.join(' → ')})`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const where = chain.length > 0 ? ` (included from ${chain[chain.length - 1]})` : '';
    throw new UsageError(`${file}${where}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  return await resolveIncludes(parseYamlFile(text, file), path.dirname(file), [...chain, file]);
}

async function resolveIncludes(v: unknown, baseDir: string, chain: readonly string[]): Promise<unknown> {
  let target: string | null = null;
  if (v instanceof Include) target = v.file;
  else if (typeof v === 'string' && v.startsWith('!include ')) target = v.slice('!include '.length).trim().replace(/^"|"$/g, '');
  if (target !== null) {
    const file = path.resolve(baseDir, target);
    if (/\.ya?ml$/.test(file)) return await readYamlFile(file, chain);
    try {
      return await readFile(file, 'utf8');
    } catch (e) {
      throw new UsageError(`${file} (included from ${chain[chain.length - 1] ?? baseDir}): ${(e as Error).message}`);
    }
  }
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) out.push(await resolveIncludes(x, baseDir, chain));
    return out;
  }
  if (typeof v === 'object' && v !== null) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) out[k] = await resolveIncludes(x, baseDir, chain);
    return out;
  }
  return v;
}

/** The metadata directory → the metadata document (wire JSON). */
export async function readMetadataDir(dir: string): Promise<Obj> {
  if (!existsSync(dir)) throw new UsageError(`metadata directory ${dir} does not exist: run \`engine metadata export\` or \`engine init\` first`);
  const doc: Obj = {};
  const optional = async (file: string): Promise<unknown> => (existsSync(path.join(dir, file)) ? await readYamlFile(path.join(dir, file)) : undefined);
  const version = (await optional('version.yaml')) as Obj | undefined;
  const v = version?.['version'] ?? 3;
  if (v !== 3) throw new UsageError(`${path.join(dir, 'version.yaml')}: metadata version ${String(v)}; only version 3 is supported`);
  doc['version'] = 3;
  const databases = await optional('databases/databases.yaml');
  if (databases !== undefined && databases !== null && !Array.isArray(databases)) {
    throw new UsageError(`${path.join(dir, 'databases/databases.yaml')}: must be a list of databases`);
  }
  doc['sources'] = ((databases as Obj[] | undefined | null) ?? []).map((s) => {
    const out: Obj = { ...s };
    for (const k of ['tables', 'functions']) if (out[k] === null) delete out[k];
    if (out['tables'] === undefined) out['tables'] = [];
    return out;
  });
  const actionsDoc = await optional('actions.yaml');
  const graphqlFile = path.join(dir, 'actions.graphql');
  const sdl = existsSync(graphqlFile) ? await readFile(graphqlFile, 'utf8') : '';
  if (actionsDoc !== undefined || sdl.trim() !== '') {
    const { actions, custom_types } = actionsFromFiles(actionsDoc, sdl, { yaml: path.join(dir, 'actions.yaml'), graphql: graphqlFile });
    if (actions.length > 0) doc['actions'] = actions;
    if (!Object.values(custom_types).every(isEmpty)) doc['custom_types'] = custom_types;
  }
  const known = new Set<string>(SPECIAL_FILES);
  for (const { key, file } of TOP_LEVEL_FILES) {
    known.add(file);
    const value = await optional(file);
    if (!isEmpty(value)) doc[key] = value;
  }
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isFile() || !entry.name.endsWith('.yaml') || known.has(entry.name)) continue;
    const value = await readYamlFile(path.join(dir, entry.name));
    if (!isEmpty(value)) doc[entry.name.slice(0, -'.yaml'.length)] = value;
  }
  return doc;
}
