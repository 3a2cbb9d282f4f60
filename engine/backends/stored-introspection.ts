/**
 * A source's introspection as text for the metadata database, and back
 * (Note [Stored introspection] in source-preparer.ts). Backend-neutral: the
 * shapes of introspection.ts, maps as entry lists. Reading checks the shape
 * field by field, so a row that is not what this engine wrote is refused with
 * the path of what is wrong rather than breaking a catalog build later.
 */
import type { IntrospectedFunction, IntrospectedTable, SourceIntrospection } from './introspection.ts';

/** The shape of the text; a stored text of another shape is refused (the backend's format covers its own content). */
const SHAPE = 1;

/** The text stored for `i` (its DDL stamp and identity are kept beside it, in the row's key). */
export function introspectionText(i: SourceIntrospection): string {
  return JSON.stringify({
    shape: SHAPE,
    fingerprint: i.fingerprint,
    serverVersion: i.serverVersion ?? null,
    tables: [...i.tables],
    functions: i.functions === undefined ? null : [...i.functions],
  });
}

/** Thrown for a stored text that is not a valid introspection. */
class Invalid extends Error {}

type Json = Record<string, unknown>;

function fail(path: string, what: string): never {
  throw new Invalid(`${path}: expected ${what}`);
}
function obj(v: unknown, path: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'an object');
  return v as Json;
}
function arr(v: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(v)) fail(path, 'an array');
  return v;
}
function str(v: unknown, path: string): void {
  if (typeof v !== 'string') fail(path, 'a string');
}
function strOrNull(v: unknown, path: string): void {
  if (v !== null && typeof v !== 'string') fail(path, 'a string or null');
}
function num(v: unknown, path: string): void {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, 'a number');
}
function bool(v: unknown, path: string): void {
  if (typeof v !== 'boolean') fail(path, 'a boolean');
}
function oneOf(v: unknown, allowed: readonly string[], path: string): void {
  if (typeof v !== 'string' || !allowed.includes(v)) fail(path, `one of ${allowed.join(', ')}`);
}
function qualified(v: unknown, path: string): void {
  const o = obj(v, path);
  str(o['schema'], `${path}.schema`);
  str(o['name'], `${path}.name`);
}
function strings(v: unknown, path: string): void {
  arr(v, path).forEach((s, i) => str(s, `${path}[${i}]`));
}

const KINDS = ['table', 'view', 'materialized_view', 'foreign_table', 'partitioned_table'];
const CATEGORIES = ['base', 'enum', 'composite', 'domain', 'range', 'pseudo', 'multirange'];

function checkColumn(v: unknown, path: string): void {
  const c = obj(v, path);
  str(c['name'], `${path}.name`);
  num(c['position'], `${path}.position`);
  str(c['dbType'], `${path}.dbType`);
  strOrNull(c['elementType'], `${path}.elementType`);
  oneOf(c['typeCategory'], CATEGORIES, `${path}.typeCategory`);
  if (c['enumLabels'] !== null) strings(c['enumLabels'], `${path}.enumLabels`);
  bool(c['nullable'], `${path}.nullable`);
  bool(c['hasDefault'], `${path}.hasDefault`);
  bool(c['isGenerated'], `${path}.isGenerated`);
  strOrNull(c['comment'], `${path}.comment`);
  if (c['defaultSql'] !== undefined) strOrNull(c['defaultSql'], `${path}.defaultSql`);
  if (c['identity'] !== undefined && c['identity'] !== null) oneOf(c['identity'], ['always', 'by-default'], `${path}.identity`);
}

function checkConstraint(v: unknown, path: string): void {
  const c = obj(v, path);
  str(c['name'], `${path}.name`);
  strings(c['columns'], `${path}.columns`);
}

function checkTable(v: unknown, path: string): IntrospectedTable {
  const t = obj(v, path);
  qualified(t['name'], `${path}.name`);
  num(t['oid'], `${path}.oid`);
  oneOf(t['kind'], KINDS, `${path}.kind`);
  strOrNull(t['comment'], `${path}.comment`);
  arr(t['columns'], `${path}.columns`).forEach((c, i) => checkColumn(c, `${path}.columns[${i}]`));
  if (t['primaryKey'] !== null) checkConstraint(t['primaryKey'], `${path}.primaryKey`);
  arr(t['uniqueConstraints'], `${path}.uniqueConstraints`).forEach((c, i) => checkConstraint(c, `${path}.uniqueConstraints[${i}]`));
  arr(t['foreignKeys'], `${path}.foreignKeys`).forEach((f, i) => {
    const p = `${path}.foreignKeys[${i}]`;
    const fk = obj(f, p);
    str(fk['name'], `${p}.name`);
    qualified(fk['target'], `${p}.target`);
    arr(fk['columnMapping'], `${p}.columnMapping`).forEach((pair, j) => {
      const two = arr(pair, `${p}.columnMapping[${j}]`);
      if (two.length !== 2) fail(`${p}.columnMapping[${j}]`, 'a pair');
      strings(two, `${p}.columnMapping[${j}]`);
    });
  });
  const m = obj(t['mutability'], `${path}.mutability`);
  for (const k of ['insertable', 'updatable', 'deletable']) bool(m[k], `${path}.mutability.${k}`);
  return t as unknown as IntrospectedTable;
}

function checkFunction(v: unknown, path: string): IntrospectedFunction {
  const f = obj(v, path);
  qualified(f['name'], `${path}.name`);
  num(f['oid'], `${path}.oid`);
  oneOf(f['volatility'], ['immutable', 'stable', 'volatile'], `${path}.volatility`);
  bool(f['returnsSet'], `${path}.returnsSet`);
  const r = obj(f['returnType'], `${path}.returnType`);
  str(r['schema'], `${path}.returnType.schema`);
  str(r['name'], `${path}.returnType.name`);
  oneOf(r['typeCategory'], CATEGORIES, `${path}.returnType.typeCategory`);
  if (f['returnTable'] !== null) qualified(f['returnTable'], `${path}.returnTable`);
  if (f['returnColumns'] !== undefined)
    arr(f['returnColumns'], `${path}.returnColumns`).forEach((c, i) => {
      const o = obj(c, `${path}.returnColumns[${i}]`);
      strOrNull(o['name'], `${path}.returnColumns[${i}].name`);
      str(o['dbType'], `${path}.returnColumns[${i}].dbType`);
      strOrNull(o['elementType'], `${path}.returnColumns[${i}].elementType`);
    });
  arr(f['args'], `${path}.args`).forEach((a, i) => {
    const p = `${path}.args[${i}]`;
    const o = obj(a, p);
    strOrNull(o['name'], `${p}.name`);
    str(o['dbType'], `${p}.dbType`);
    strOrNull(o['elementType'], `${p}.elementType`);
    oneOf(o['typeCategory'], CATEGORIES, `${p}.typeCategory`);
    bool(o['hasDefault'], `${p}.hasDefault`);
  });
  strOrNull(f['comment'], `${path}.comment`);
  return f as unknown as IntrospectedFunction;
}

function entries<T>(v: unknown, path: string, check: (value: unknown, path: string) => T): Map<string, T> {
  const out = new Map<string, T>();
  arr(v, path).forEach((e, i) => {
    const pair = arr(e, `${path}[${i}]`);
    if (pair.length !== 2 || typeof pair[0] !== 'string') fail(`${path}[${i}]`, 'a [key, value] pair');
    out.set(pair[0], check(pair[1], `${path}[${i}][1]`));
  });
  return out;
}

/**
 * The introspection stored as `text`, read with `ddlStamp` and `identity`
 * (the row's key). Throws a message naming what is wrong when the text is not
 * one {@link introspectionText} wrote.
 */
export function parseIntrospectionText(text: string, ddlStamp: string, identity: string): SourceIntrospection {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Invalid(`not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const o = obj(raw, '$');
  if (o['shape'] !== SHAPE) fail('$.shape', String(SHAPE));
  str(o['fingerprint'], '$.fingerprint');
  if (o['serverVersion'] !== null) num(o['serverVersion'], '$.serverVersion');
  const tables = entries(o['tables'], '$.tables', checkTable);
  const functions =
    o['functions'] === null
      ? undefined
      : entries(o['functions'], '$.functions', (v, p) => arr(v, p).map((f, i) => checkFunction(f, `${p}[${i}]`)) as readonly IntrospectedFunction[]);
  return {
    tables,
    ...(functions === undefined ? {} : { functions }),
    fingerprint: o['fingerprint'] as string,
    ...(o['serverVersion'] === null ? {} : { serverVersion: o['serverVersion'] as number }),
    ddlStamp,
    identity,
  };
}
