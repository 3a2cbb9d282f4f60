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

// verbose: errors carry their parentSchema, whose properties are the keys to suggest (Note [Key suggestions]).
const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let v = compiled.get(schema);
  if (v === undefined) {
    v = ajv.compile(schema);
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

/**
 * Validates `value` against `schema`; throws `parse-failed` with the path
 * (under `base`, e.g. `$.args`) of the most telling error.
 */
export function assertValid<T>(schema: JsonSchema, value: unknown, base: string): T {
  const v = validatorFor(schema);
  if (v(value)) return value as T;
  const { path, message } = describe(v.errors ?? [], value, base);
  throw new EngineError(ErrorCode.ParseFailed, message, { path });
}
