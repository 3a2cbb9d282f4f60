/**
 * The secrets of a metadata document, moved out of it: every value a resource must not carry in
 * clear (a database URL or connection string given by value, a BigQuery service account, a header
 * value) is replaced by the reference the kinds already have (`{from_env: VAR}`, `value_from_env:
 * VAR`), and the value is returned beside the document for a Secret the engine's environment reads.
 *
 * Note [Secrets become environment variables]
 * No kind of the operator's API references a Kubernetes Secret for metadata: a Source or a
 * RemoteSchema says `from_env` / `value_from_env`, exactly as v2's metadata does, and the engine
 * reads the variable. So the conversion replaces each secret by such a reference and hands the
 * variable's name, where it came from and its value to the caller, which writes a Secret template
 * (keys only) and the `env` entries of `Engine.spec.deployment` that fill the variables from it.
 * A value that already is a reference (`from_env`, `value_from_env`, a `{{VAR}}` URL template) is
 * left alone. A connection given as `connection_parameters` without a password is not a secret;
 * with one it becomes a `from_env` URL built as the engine builds it. Every header value is treated
 * as a secret: the metadata does not say which ones are (an `Authorization` header, an API key),
 * and a header that is not one costs only a variable.
 */
import type { JsonObject, JsonValue, MetadataDocument, SourceMetadata, TableMetadata } from '../../engine/model/document.ts';

/** One secret taken out of the document. */
export interface ExtractedSecret {
  /** The environment variable the document now reads (also the Secret key). */
  readonly env: string;
  /** Where it was, e.g. `sources[default].configuration.connection_info.database_url`. */
  readonly where: string;
  /** The value (never written into a resource). */
  readonly value: string;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An environment variable name from parts: upper case, `_` between words. */
export function envName(...parts: readonly string[]): string {
  const name = parts
    .map((p) => p.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, ''))
    .filter((p) => p !== '')
    .join('_')
    .toUpperCase();
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

const TEMPLATE = /\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/;

/** v2's getPGConnectionStringFromParams (as engine/backends/postgres/configuration.ts builds it). */
function urlOfParameters(p: JsonObject): string {
  const password = p['password'];
  const user = encodeURIComponent(String(p['username'])) + (typeof password === 'string' ? `:${encodeURIComponent(password)}` : '');
  const host = String(p['host']);
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : encodeURIComponent(host);
  return `postgresql://${user}@${h}:${String(p['port'])}/${encodeURIComponent(String(p['database']))}`;
}

class Extractor {
  readonly secrets: ExtractedSecret[] = [];
  readonly #used = new Set<string>();

  constructor(taken: Iterable<string>) {
    for (const t of taken) this.#used.add(t);
  }

  /** Records a secret; answers the variable that now holds it (made unique). */
  take(base: string, where: string, value: string): string {
    let env = base;
    for (let i = 2; this.#used.has(env); i++) env = `${base}_${i}`;
    this.#used.add(env);
    this.secrets.push({ env, where, value });
    return env;
  }

  /** A postgres `database_url` (string, from_env or connection_parameters). */
  databaseUrl(url: JsonValue | undefined, base: string, where: string): JsonValue | undefined {
    if (typeof url === 'string') return TEMPLATE.test(url) ? url : { from_env: this.take(base, where, url) };
    if (isObject(url) && isObject(url['connection_parameters']) && typeof url['connection_parameters']['password'] === 'string') {
      return { from_env: this.take(base, where, urlOfParameters(url['connection_parameters'])) };
    }
    return url;
  }

  /** A `{from_env}`-or-value field (MSSQL connection string). */
  valueOrEnv(v: JsonValue | undefined, base: string, where: string): JsonValue | undefined {
    return typeof v === 'string' && !TEMPLATE.test(v) ? { from_env: this.take(base, where, v) } : v;
  }

  /** Header values by value → value_from_env. */
  headers(list: JsonValue | undefined, owner: string, where: string): JsonValue | undefined {
    if (!Array.isArray(list)) return list;
    return list.map((h: JsonValue) => {
      if (!isObject(h) || typeof h['value'] !== 'string') return h;
      const { value, ...rest } = h;
      return { ...rest, value_from_env: this.take(envName(owner, String(h['name'])), `${where}[${String(h['name'])}]`, value as string) };
    });
  }
}

function withKey(o: JsonObject, key: string, v: JsonValue | undefined): JsonObject {
  if (v === undefined || o[key] === v) return o;
  return { ...o, [key]: v };
}

function sourceSecrets(x: Extractor, s: SourceMetadata): SourceMetadata {
  const where = `sources[${s.name}].configuration`;
  let c = s.configuration as JsonObject;
  const info = isObject(c['connection_info']) ? c['connection_info'] : undefined;
  if (s.kind === 'postgres' && info !== undefined) {
    c = withKey(
      c,
      'connection_info',
      withKey(info, 'database_url', x.databaseUrl(info['database_url'], envName(s.name, 'DATABASE_URL'), `${where}.connection_info.database_url`)),
    );
  }
  if (s.kind === 'mssql' && info !== undefined) {
    const cs = x.valueOrEnv(info['connection_string'], envName(s.name, 'CONNECTION_STRING'), `${where}.connection_info.connection_string`);
    c = withKey(c, 'connection_info', withKey(info, 'connection_string', cs));
  }
  if (s.kind === 'bigquery') {
    const sa = c['service_account'];
    if (typeof sa === 'string' || (isObject(sa) && sa['from_env'] === undefined)) {
      const text = typeof sa === 'string' ? sa : JSON.stringify(sa);
      c = withKey(c, 'service_account', { from_env: x.take(envName(s.name, 'SERVICE_ACCOUNT'), `${where}.service_account`, text) });
    }
  }
  const replicas = c['read_replicas'];
  if (Array.isArray(replicas)) {
    const next = replicas.map((r: JsonValue, i: number) => {
      if (!isObject(r) || !isObject(r['connection_info'])) return r;
      const ri = r['connection_info'];
      const base = envName(s.name, 'READ_REPLICA', String(i + 1));
      const rwhere = `${where}.read_replicas[${i}].connection_info`;
      const fixed =
        s.kind === 'mssql'
          ? withKey(ri, 'connection_string', x.valueOrEnv(ri['connection_string'], `${base}_CONNECTION_STRING`, `${rwhere}.connection_string`))
          : withKey(ri, 'database_url', x.databaseUrl(ri['database_url'], `${base}_DATABASE_URL`, `${rwhere}.database_url`));
      return withKey(r, 'connection_info', fixed);
    });
    c = withKey(c, 'read_replicas', next);
  }
  return c === s.configuration ? s : { ...s, configuration: c };
}

function tableSecrets(x: Extractor, source: string, t: TableMetadata): TableMetadata {
  if (t.event_triggers.length === 0) return t;
  const event_triggers = t.event_triggers.map((e) => {
    const name = String(e['name']);
    return withKey(
      e,
      'headers',
      x.headers(e['headers'], `EVENT_TRIGGER_${name}`, `sources[${source}].tables[${t.table.schema}.${t.table.name}].event_triggers[${name}].headers`),
    );
  });
  return { ...t, event_triggers };
}

/** Every environment variable a document reads (so new names do not take them). */
export function envNamesIn(v: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(v)) for (const x of v) envNamesIn(x, out);
  else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if ((k === 'from_env' || k === 'value_from_env' || k === 'url_from_env' || k === 'webhook_from_env') && typeof x === 'string') out.add(x);
      else envNamesIn(x, out);
    }
  }
  return out;
}

/**
 * The document with its secrets replaced by environment references, and the secrets. See
 * Note [Secrets become environment variables].
 */
export function extractSecrets(doc: MetadataDocument): { document: MetadataDocument; secrets: readonly ExtractedSecret[] } {
  const x = new Extractor(envNamesIn(doc, new Set()));
  const sources = doc.sources.map((s) => {
    const fixed = sourceSecrets(x, s);
    return { ...fixed, tables: fixed.tables.map((t) => tableSecrets(x, s.name, t)) };
  });
  const remote_schemas = doc.remote_schemas.map((r) => {
    const name = String(r['name']);
    const d = r['definition'];
    if (!isObject(d)) return r;
    return withKey(r, 'definition', withKey(d, 'headers', x.headers(d['headers'], `REMOTE_SCHEMA_${name}`, `remote_schemas[${name}].definition.headers`)));
  });
  const cron_triggers = doc.cron_triggers.map((c) => {
    const name = String(c['name']);
    return withKey(c, 'headers', x.headers(c['headers'], `CRON_TRIGGER_${name}`, `cron_triggers[${name}].headers`));
  });
  const actions = doc.actions.map((a) => {
    const name = String(a['name']);
    const d = a['definition'];
    if (!isObject(d)) return a;
    return withKey(a, 'definition', withKey(d, 'headers', x.headers(d['headers'], `ACTION_${name}`, `actions[${name}].definition.headers`)));
  });
  return { document: { ...doc, sources, remote_schemas, cron_triggers, actions }, secrets: x.secrets };
}

/** Paths of `request_transform.request_headers.add_headers` entries under `v`. */
function transformHeaders(v: unknown, where: string, out: string[]): void {
  if (!isObject(v)) return;
  const t = v['request_transform'];
  const add = isObject(t) && isObject(t['request_headers']) ? t['request_headers']['add_headers'] : undefined;
  if (isObject(add)) for (const name of Object.keys(add)) out.push(`${where}.request_transform.request_headers.add_headers[${name}]`);
}

/** Paths of URLs with a password in them (`https://user:password@host`). */
function urlPassword(v: unknown, where: string, out: string[]): void {
  if (typeof v === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i.test(v)) out.push(where);
}

/**
 * Values that may be secrets but have no environment reference in the metadata, so they are
 * written as they are and the caller asks the user to check them: request transforms' added
 * headers (templates, not values) and webhook or handler URLs with a password.
 */
export function valuesLeftInClear(doc: MetadataDocument): string[] {
  const out: string[] = [];
  for (const s of doc.sources) {
    for (const t of s.tables) {
      for (const e of t.event_triggers) {
        const where = `sources[${s.name}].tables[${t.table.schema}.${t.table.name}].event_triggers[${String(e['name'])}]`;
        transformHeaders(e, where, out);
        urlPassword(e['webhook'], `${where}.webhook`, out);
      }
    }
  }
  for (const c of doc.cron_triggers) {
    transformHeaders(c, `cron_triggers[${String(c['name'])}]`, out);
    urlPassword(c['webhook'], `cron_triggers[${String(c['name'])}].webhook`, out);
  }
  for (const a of doc.actions) {
    const d = a['definition'];
    transformHeaders(d, `actions[${String(a['name'])}].definition`, out);
    if (isObject(d)) urlPassword(d['handler'], `actions[${String(a['name'])}].definition.handler`, out);
  }
  for (const r of doc.remote_schemas) {
    const d = r['definition'];
    if (isObject(d)) urlPassword(d['url'], `remote_schemas[${String(r['name'])}].definition.url`, out);
  }
  return out;
}
