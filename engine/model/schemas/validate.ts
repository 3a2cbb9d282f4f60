/**
 * ajv validation with v2-style error answers: one error, `parse-failed`, and a
 * JSON path under the call (`$.args.table.name`).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { didYouMean } from '../../errors/suggest.ts';

/** A JSON schema as a plain object. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/*
 * Note [Validator compile]
 * The document validator is compiled on first use: a start that trusts its
 * stamp (Note [Document stamp] in metadata/store.ts) leaves it to the first
 * replace_metadata, where compiling it was 150–190 ms of CPU, about a
 * quarter of the call at 2,000 tables × 10 roles. ajv's `optimize` pass over
 * the generated code was a third of that (`code: {optimize: false}`: 104–114
 * ms against 151–170 ms, five alternated compiles each) and made validating
 * the 3 MiB document no faster (28–66 ms either way), so it is off. The
 * generated code checks the same keywords in the same order: only unused
 * variables and constant branches are left in it. Re-measure: `node
 * test/bench/document-parse-cost.ts` (its "validator compile" line).
 */
/*
 * Note [Repeated subschemas compiled once]
 * The schemas are built in code, so one subschema object often sits in many
 * places (a qualified table name in six, a custom root field in eleven, a
 * relationship's `using` in both relationship lists), and ajv generated its
 * code again at every place: the document validator was ~590 KB of code. Each
 * subschema met more than once (by identity) now goes into `$defs` and every
 * place refers to it, with `inlineRefs: false`, so its code is generated once.
 * The checks, their order and the errors (instancePath, keyword, params,
 * message, an equal parentSchema) are the same:
 * test/unit/model/schemas/shared-subschemas.test.ts compares them over a
 * corpus of broken documents. Compiling the document validator took 42–62 ms
 * against 76–133 ms (two alternated compiles each, loaded machine); with the
 * optimize pass off too (Note [Validator compile]), the stored-document
 * validator compiled in 79–91 ms against 145–167 ms on d9ebab6, and
 * validating the 3 MiB document took 27–38 ms against 30–51 (three
 * alternated runs of `node test/bench/document-parse-cost.ts 2000 10 2`, its
 * "validator compile" and "validate" figures).
 */

/** Keywords whose values are data, not subschemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'required', 'default', 'examples', 'dependentRequired']);
/** Keywords whose values map names to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Subschemas shorter than this (as JSON) stay inline: a call costs more than their few checks. */
const MIN_SHARED_JSON = 60;

function isObjectValue(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `schema` with every subschema object that occurs more than once (by
 * identity) moved to `$defs` and referred to (Note [Repeated subschemas
 * compiled once]); `schema` itself when none does. Schemas holding `$ref`
 * or `$id` are left alone.
 */
export function withSharedSubschemas(schema: JsonSchema): JsonSchema {
  const seen = new Map<object, number>();
  let refs = false;
  const count = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) count(x);
      return;
    }
    if (!isObjectValue(v)) return;
    const n = (seen.get(v) ?? 0) + 1;
    seen.set(v, n);
    if (n > 1) return;
    if ('$ref' in v || '$id' in v || '$defs' in v) refs = true;
    for (const [k, c] of Object.entries(v)) {
      if (DATA_KEYWORDS.has(k)) continue;
      if (SCHEMA_MAPS.has(k)) {
        if (isObjectValue(c)) for (const x of Object.values(c)) count(x);
      } else count(c);
    }
  };
  count(schema);
  if (refs) return schema;
  const names = new Map<object, string>();
  for (const [o, n] of seen) if (n > 1 && o !== schema && JSON.stringify(o).length >= MIN_SHARED_JSON) names.set(o, `shared${names.size}`);
  if (names.size === 0) return schema;
  const rewrite = (v: unknown, top: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x) => rewrite(x, false));
    if (!isObjectValue(v)) return v;
    const name = names.get(v);
    if (!top && name !== undefined) return { $ref: `#/$defs/${name}` };
    const out: Record<string, unknown> = {};
    for (const [k, c] of Object.entries(v)) {
      if (DATA_KEYWORDS.has(k)) out[k] = c;
      else if (SCHEMA_MAPS.has(k) && isObjectValue(c)) out[k] = Object.fromEntries(Object.entries(c).map(([pk, pv]) => [pk, rewrite(pv, false)]));
      else out[k] = rewrite(c, false);
    }
    return out;
  };
  const $defs: Record<string, unknown> = {};
  for (const [o, name] of names) $defs[name] = rewrite(o, true);
  return { ...(rewrite(schema, true) as Record<string, unknown>), $defs };
}

// verbose: errors carry their parentSchema, whose properties are the keys to suggest (Note [Key suggestions]).
const ajv = new Ajv({ allErrors: true, strict: false, verbose: true, inlineRefs: false, code: { optimize: false } });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let v = compiled.get(schema);
  if (v === undefined) {
    v = ajv.compile(withSharedSubschemas(schema));
    compiled.set(schema, v);
  }
  return v;
}

/** `/a/0/b` under `$.args` → `$.args.a[0].b`. */
function toJsonPath(base: string, pointer: string): string {
  let out = base;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(seg) ? `[${seg}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(seg) ? `.${seg}` : `['${seg}']`;
  }
  return out;
}

function typeOfJson(v: unknown): string {
  if (v === null) return 'Null';
  if (Array.isArray(v)) return 'Array';
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'boolean':
      return 'Boolean';
    default:
      return 'Object';
  }
}

function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const raw of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'String',
  number: 'Number',
  integer: 'Integer',
  boolean: 'Boolean',
  object: 'Object',
  array: 'Array',
  null: 'Null',
};

/**
 * Picks the most telling error: the deepest path wins (a branch that got
 * further explains more), and type errors at the same spot are merged into
 * "expected A or B, encountered C".
 */
function describe(errors: readonly ErrorObject[], value: unknown, base: string): { path: string; message: string } {
  const useful = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf' && e.keyword !== 'if');
  const pool = useful.length > 0 ? useful : errors;
  const depth = (e: ErrorObject): number => e.instancePath.split('/').length + (e.keyword === 'required' || e.keyword === 'additionalProperties' ? 1 : 0);
  const maxDepth = Math.max(...pool.map(depth));
  const deepest = pool.filter((e) => depth(e) === maxDepth);
  let first = deepest.find((e) => e.keyword !== 'type') ?? deepest[0] ?? pool[0];
  // A missing key beside an unexpected one that is close to it is a typo: name the typo.
  if (first?.keyword === 'required') {
    const missing = String(first.params['missingProperty']);
    const at = first.instancePath;
    const typo = deepest.find(
      (e) => e.keyword === 'additionalProperties' && e.instancePath === at && didYouMean(String(e.params['additionalProperty']), [missing]) !== '',
    );
    if (typo !== undefined) first = typo;
  }
  if (first === undefined) return { path: base, message: 'invalid value' };
  const path = toJsonPath(base, first.instancePath);
  const here = valueAt(value, first.instancePath);
  switch (first.keyword) {
    case 'required': {
      const key = String(first.params['missingProperty']);
      return { path, message: `key "${key}" not found` };
    }
    case 'additionalProperties': {
      const key = String(first.params['additionalProperty']);
      return { path: `${path}.${key}`, message: unexpectedKeyMessage(key, first.parentSchema) };
    }
    case 'type': {
      const wanted = new Set<string>();
      for (const e of deepest) {
        if (e.keyword !== 'type') continue;
        const t = e.params['type'];
        for (const one of Array.isArray(t) ? t : [t]) wanted.add(TYPE_NAMES[String(one)] ?? String(one));
      }
      return { path, message: `expected ${[...wanted].join(' or ')}, encountered ${typeOfJson(here)}` };
    }
    case 'enum': {
      const allowed = (first.params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return { path, message: `expected one of ${allowed}, encountered ${JSON.stringify(here)}` };
    }
    case 'const':
      return { path, message: `expected ${JSON.stringify(first.params['allowedValue'])}, encountered ${JSON.stringify(here)}` };
    default:
      return { path, message: first.message ?? 'invalid value' };
  }
}

/**
 * Note [Key suggestions]
 * A misspelled key is the commonest mistake in a hand-written metadata call,
 * and ajv only says "must NOT have additional properties". The message names
 * the key and, when one is close (errors/suggest.ts), the valid key it was
 * probably meant to be: `unexpected key "colums"; did you mean "columns"?`.
 * Every strict schema (additionalProperties: false) gets this wording.
 */
export function unexpectedKeyMessage(key: string, parentSchema: unknown): string {
  const props = parentSchema !== null && typeof parentSchema === 'object' ? (parentSchema as { properties?: unknown }).properties : undefined;
  const valid = props !== null && typeof props === 'object' ? Object.keys(props) : [];
  return `unexpected key "${key}"${didYouMean(key, valid)}`;
}

/** The JSON pointer of key `key` of the object at `parent`. */
function childPointer(parent: string, key: string): string {
  return `${parent}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Deletes (or, with `put`, sets) the key at `pointer` of `root`; the parent must be an object. */
function setAt(root: unknown, pointer: string, put?: null): void {
  const cut = pointer.lastIndexOf('/');
  const parent = valueAt(root, pointer.slice(0, cut)) as Record<string, unknown>;
  const key = pointer
    .slice(cut + 1)
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
  if (put === undefined) delete parent[key];
  else parent[key] = put;
}

function isPlainObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Note [Null is absent]
 * v2 reads optional keys with aeson's `.:?`, for which `null` is the key left
 * out: `pool_settings: {max_connections: null}`, `timeout_seconds: null` or
 * `comment: null` mean the default. Rather than allow null key by key in every
 * schema, a value that fails validation is checked again without each object
 * key whose `null` the schema refused at that spot (a type, enum or const
 * error). A key that then turns out required is put back, as v2's `.:`
 * refuses null too, and the answer is the original "expected X, encountered
 * Null". The value returned is the one without those keys, so what is stored
 * and exported omits them. Nulls the schema accepts (a column preset, a
 * `connection_lifetime: null`) and nulls in arrays are kept.
 */
function validateNullAsAbsent(
  v: ValidateFunction,
  value: unknown,
): { ok: true; value: unknown } | { ok: false; value: unknown; errors: readonly ErrorObject[] } {
  if (v(value)) return { ok: true, value };
  let cur = value;
  let cloned = false;
  const removed = new Set<string>();
  const required = new Set<string>();
  for (let round = 0; round < 32; round++) {
    const errors = v.errors ?? [];
    const missing = new Set(errors.filter((e) => e.keyword === 'required').map((e) => childPointer(e.instancePath, String(e.params['missingProperty']))));
    const restore = [...removed].filter((p) => missing.has(p));
    const refused = new Set(
      errors
        .filter((e) => (e.keyword === 'type' || e.keyword === 'enum' || e.keyword === 'const') && e.instancePath !== '')
        .map((e) => e.instancePath)
        .filter((p) => !required.has(p) && !removed.has(p) && valueAt(cur, p) === null && isPlainObject(valueAt(cur, p.slice(0, p.lastIndexOf('/'))))),
    );
    if (restore.length === 0 && refused.size === 0) return { ok: false, value: cur, errors };
    if (!cloned) {
      cur = structuredClone(cur);
      cloned = true;
    }
    for (const p of restore) {
      setAt(cur, p, null);
      removed.delete(p);
      required.add(p);
    }
    for (const p of refused) {
      setAt(cur, p);
      removed.add(p);
    }
    if (v(cur)) return { ok: true, value: cur };
  }
  v(value);
  return { ok: false, value, errors: v.errors ?? [] };
}

/**
 * Validates `value` against `schema` (an optional key given as `null` is
 * absent: Note [Null is absent]); answers the value, without such keys, or
 * throws `parse-failed` with the path (under `base`, e.g. `$.args`) of the
 * most telling error.
 */
export function assertValid<T>(schema: JsonSchema, value: unknown, base: string): T {
  const r = validateNullAsAbsent(validatorFor(schema), value);
  if (r.ok) return r.value as T;
  const { path, message } = describe(r.errors, r.value, base);
  throw new EngineError(ErrorCode.ParseFailed, message, { path });
}
