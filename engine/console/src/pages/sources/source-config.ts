/**
 * An existing source's configuration as its editor holds it (the text of each field), read from
 * the exported `configuration` and `customization`, and written back over them: what the editor
 * does not show (connection parameters, extensions schema, a replica's other settings, the
 * type-name mapping) is kept as it came. Which settings a kind has is `configurationFields`
 * (source-kinds.ts); the values are the engine's to check (`<prefix>_update_source`).
 */
import { configurationFields, type ConfigurationFields } from '../../source-kinds.ts';

/** One read replica: its connection (a value or an environment variable) and its pool size. */
export interface ReplicaRow {
  readonly connection: string;
  readonly fromEnv: boolean;
  readonly maxConnections: string;
  /** The replica as it came, kept under what the row edits (null for a new row). */
  readonly original: Readonly<Record<string, unknown>> | null;
}

/** How the source's own connection is given: a value, an environment variable, or v2's `connection_parameters` (kept as they came). */
export type ConnectionMode = 'value' | 'env' | 'parameters';

/** v2's `ssl_configuration` (PGCertSettings): the mode, and each certificate file's environment variable. */
export interface SslForm {
  /** '' is no `ssl_configuration`. */
  readonly mode: string;
  readonly rootCert: string;
  readonly cert: string;
  readonly key: string;
  readonly password: string;
}

/** v2's SSLMode values. */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

/** The `ssl_configuration` keys holding `{from_env}`, by the form's field. */
const SSL_ENV_KEYS = [
  ['rootCert', 'sslrootcert'],
  ['cert', 'sslcert'],
  ['key', 'sslkey'],
  ['password', 'sslpassword'],
] as const;

export interface SourceForm {
  /** The connection's text: the URL or connection string (`value`), the variable's name (`env`), '' (`parameters`). */
  readonly connection: string;
  readonly connectionMode: ConnectionMode;
  readonly ssl: SslForm;
  /** `pool_settings` (or, for BigQuery, top-level) whole numbers as typed, by key. */
  readonly numbers: Readonly<Record<string, string>>;
  /** '' is the kind's default. */
  readonly isolationLevel: string;
  /** 'default', 'on' or 'off'. */
  readonly preparedStatements: 'default' | 'on' | 'off';
  readonly replicas: readonly ReplicaRow[];
  readonly namespace: string;
  readonly rootPrefix: string;
  readonly rootSuffix: string;
  readonly typePrefix: string;
  readonly typeSuffix: string;
}

type Obj = Readonly<Record<string, unknown>>;

function obj(v: unknown): Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {};
}

function text(v: unknown): string {
  return typeof v === 'number' || typeof v === 'string' ? String(v) : '';
}

/** The form of a source's configuration and customization. */
export function readForm(kind: string, configuration: unknown, customization: unknown): SourceForm {
  const f = configurationFields(kind);
  const conf = obj(configuration);
  const info = obj(conf['connection_info']);
  const pool = obj(info['pool_settings']);
  const numbers: Record<string, string> = {};
  for (const s of f.pool) numbers[s.key] = text(pool[s.key]);
  for (const s of f.topLevel) numbers[s.key] = text(conf[s.key]);
  const prepared = info['use_prepared_statements'];
  const own = f.connectionKey === null ? undefined : info[f.connectionKey];
  const ownEnv = obj(own)['from_env'];
  const sslConf = obj(info['ssl_configuration']);
  const envOf = (k: string) => {
    const v = obj(sslConf[k])['from_env'];
    return typeof v === 'string' ? v : '';
  };
  const replicas = (Array.isArray(conf['read_replicas']) ? (conf['read_replicas'] as unknown[]) : []).map((r): ReplicaRow => {
    const ri = obj(r);
    const conn = f.connectionKey === null ? undefined : ri[f.connectionKey];
    const env = obj(conn)['from_env'];
    return {
      connection: typeof conn === 'string' ? conn : typeof env === 'string' ? env : '',
      fromEnv: typeof env === 'string',
      maxConnections: text(obj(ri['pool_settings'])['max_connections']),
      original: ri,
    };
  });
  const cust = obj(customization);
  const root = obj(cust['root_fields']);
  const types = obj(cust['type_names']);
  return {
    connection: typeof own === 'string' ? own : typeof ownEnv === 'string' ? ownEnv : '',
    connectionMode: typeof own === 'string' || own === undefined ? 'value' : typeof ownEnv === 'string' ? 'env' : 'parameters',
    ssl: {
      mode: typeof sslConf['sslmode'] === 'string' ? sslConf['sslmode'] : '',
      rootCert: envOf('sslrootcert'),
      cert: envOf('sslcert'),
      key: envOf('sslkey'),
      password: envOf('sslpassword'),
    },
    numbers,
    isolationLevel: typeof info['isolation_level'] === 'string' ? info['isolation_level'] : '',
    preparedStatements: prepared === true ? 'on' : prepared === false ? 'off' : 'default',
    replicas,
    namespace: text(root['namespace']),
    rootPrefix: text(root['prefix']),
    rootSuffix: text(root['suffix']),
    typePrefix: text(types['prefix']),
    typeSuffix: text(types['suffix']),
  };
}

/**
 * An integer as typed, or the reason it is not one. Only the form is checked here; the range is
 * the engine's (it answers why 0 connections will not do, with the setting's path).
 */
function integer(value: string, label: string): number {
  const t = value.trim();
  if (!/^-?\d+$/.test(t) || !Number.isSafeInteger(Number(t))) throw new Error(`${label} must be a whole number, not ${JSON.stringify(value)}`);
  return Number(t);
}

/** `base` with `key` set to `value`, or without `key` when `value` is undefined. */
function setKey(base: Obj, key: string, value: unknown): Obj {
  const out: Record<string, unknown> = { ...base };
  if (value === undefined) delete out[key];
  else out[key] = value;
  return out;
}

function numbersInto(base: Obj, settings: ConfigurationFields['pool'], numbers: SourceForm['numbers']): Obj {
  let out = base;
  for (const s of settings) {
    const typed = numbers[s.key] ?? '';
    out = setKey(out, s.key, typed.trim() === '' ? undefined : integer(typed, s.label));
  }
  return out;
}

/**
 * `ssl_configuration` as the form says, over the one the source had, or undefined (no mode and no
 * file). v2 requires `sslmode`, so a file without one is refused here.
 */
function sslInto(base: Obj, ssl: SslForm): Obj | undefined {
  const files = SSL_ENV_KEYS.filter(([field]) => ssl[field].trim() !== '');
  if (ssl.mode === '') {
    if (files.length > 0) throw new Error('Choose an SSL mode for the SSL certificate settings');
    return undefined;
  }
  let out = setKey(base, 'sslmode', ssl.mode);
  for (const [field, key] of SSL_ENV_KEYS) {
    const name = ssl[field].trim();
    out = setKey(out, key, name === '' ? undefined : { from_env: name });
  }
  return out;
}

/** Leaves out an empty object (a section whose every field is empty). */
function nonEmpty(o: Obj): Obj | undefined {
  return Object.keys(o).length === 0 ? undefined : o;
}

/** The `configuration` and `customization` the form says, over the ones the source had. */
export function writeForm(kind: string, form: SourceForm, configuration: unknown, customization: unknown): { configuration: Obj; customization: Obj } {
  const f = configurationFields(kind);
  let conf = numbersInto(obj(configuration), f.topLevel, form.numbers);
  if (f.connectionKey !== null) {
    let info = obj(conf['connection_info']);
    if (form.connectionMode !== 'parameters') {
      const c = form.connection.trim();
      if (c === '') throw new Error(form.connectionMode === 'env' ? 'The connection needs an environment variable' : 'The connection needs a URL');
      info = setKey(info, f.connectionKey, form.connectionMode === 'env' ? { from_env: c } : c);
    }
    if (f.ssl) info = setKey(info, 'ssl_configuration', sslInto(obj(info['ssl_configuration']), form.ssl));
    info = setKey(info, 'pool_settings', nonEmpty(numbersInto(obj(info['pool_settings']), f.pool, form.numbers)));
    if (f.isolationLevels.length > 0) info = setKey(info, 'isolation_level', form.isolationLevel === '' ? undefined : form.isolationLevel);
    if (f.preparedStatements)
      info = setKey(info, 'use_prepared_statements', form.preparedStatements === 'default' ? undefined : form.preparedStatements === 'on');
    conf = setKey(conf, 'connection_info', info);
  }
  if (f.readReplicas && f.connectionKey !== null) {
    const key = f.connectionKey;
    const replicas = form.replicas.map((r, i) => {
      if (r.connection.trim() === '') throw new Error(`Read replica ${i + 1} needs ${r.fromEnv ? 'an environment variable' : 'a connection'}`);
      let ri = setKey(r.original ?? {}, key, r.fromEnv ? { from_env: r.connection.trim() } : r.connection.trim());
      const pool = setKey(
        obj(ri['pool_settings']),
        'max_connections',
        r.maxConnections.trim() === '' ? undefined : integer(r.maxConnections, `Read replica ${i + 1}'s max connections`),
      );
      ri = setKey(ri, 'pool_settings', nonEmpty(pool));
      return ri;
    });
    conf = setKey(conf, 'read_replicas', replicas.length === 0 ? undefined : replicas);
  }
  const cust = obj(customization);
  const opt = (s: string) => (s.trim() === '' ? undefined : s.trim());
  let root = obj(cust['root_fields']);
  root = setKey(setKey(setKey(root, 'namespace', opt(form.namespace)), 'prefix', opt(form.rootPrefix)), 'suffix', opt(form.rootSuffix));
  let types = obj(cust['type_names']);
  types = setKey(setKey(types, 'prefix', opt(form.typePrefix)), 'suffix', opt(form.typeSuffix));
  const customizationOut = setKey(setKey(cust, 'root_fields', nonEmpty(root)), 'type_names', nonEmpty(types));
  return { configuration: conf, customization: customizationOut };
}
