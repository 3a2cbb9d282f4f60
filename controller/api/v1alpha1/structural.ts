/**
 * Turns the JSON schemas the engine validates metadata with (engine/model/schemas, ajv,
 * draft-07 style) into Kubernetes *structural* OpenAPI v3 schemas for the CRDs, so that one
 * schema serves both the metadata API and `kubectl apply`.
 *
 * Note [Structural schemas from ajv schemas]
 * A structural schema needs a `type` on every node, has no `oneOf`/`if`/`const` that change the
 * shape, and marks free-form subtrees with `x-kubernetes-preserve-unknown-fields`. The mapping:
 * - `type: [T, 'null']` → `type: T, nullable: true`;
 * - `enum` containing null → the enum without null, `nullable: true`; `const` → a one-value enum;
 * - `oneOf` whose branches have different JSON types (a table name is a string or an object) →
 *   a free-form node that still refuses the JSON types no branch admits (see Note [Typed unions
 *   without types]) and keeps each branch's own constraints, so `table: 42` fails at
 *   `kubectl apply --dry-run=server` instead of at reconcile;
 * - `type: object` without properties (a boolean expression) → a free-form object;
 * - `additionalProperties: false` → dropped (the apiserver prunes unknown fields of structural
 *   objects anyway); `additionalProperties: <schema>` → kept as a map;
 * - `if`/`then` (only used to pick the Postgres configuration shape) → dropped.
 */

/** A JSON schema as a plain object (the engine's schema type, redeclared to keep imports one-way). */
export type JsonSchemaNode = Readonly<Record<string, unknown>>;

/** A structural OpenAPI v3 schema node as it goes into a CRD. */
export type OpenApiSchema = { [k: string]: unknown };

const KEPT_KEYWORDS = [
  'description',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'format',
  'default',
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
] as const;

function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** The JSON types a schema node admits, or null when it admits anything. */
function typesOf(s: JsonSchemaNode): Set<string> | null {
  const t = s['type'];
  if (typeof t === 'string') return new Set([t]);
  if (Array.isArray(t)) return new Set(t.filter((x): x is string => typeof x === 'string'));
  if (Array.isArray(s['enum'])) return new Set((s['enum'] as unknown[]).map(jsonTypeOf));
  if ('const' in s) return new Set([jsonTypeOf(s['const'])]);
  const branches = s['oneOf'] ?? s['anyOf'];
  if (Array.isArray(branches)) {
    const all = new Set<string>();
    for (const b of branches as JsonSchemaNode[]) {
      const bt = typesOf(b);
      if (bt === null) return null;
      for (const x of bt) all.add(x);
    }
    return all;
  }
  return null;
}

/**
 * Note [Typed unions without types]
 * A structural schema cannot say "string or object" (a node has one type; `anyOf` may not carry
 * types), and CEL cannot see inside a node without a type (measured on kube-apiserver 1.33: the CRD
 * is refused with "unable to convert structural schema to CEL declarations", and a rule on the
 * parent finds no such field). But value validations without a type apply only to values of the
 * JSON type they are about, and are allowed on a preserve-unknown-fields node. So a union is a
 * free-form node carrying, for every JSON type outside the union, a pair of constraints no value
 * of that type can meet (numbers: minimum 1 and maximum 0; arrays: minItems 1, maxItems 0;
 * objects: minProperties 1, maxProperties 0; strings: minLength 1, maxLength 0; booleans: not an
 * enum of both), plus the constraints of the branch of each admitted type (a table name's
 * minLength, the object form's typed `name` and `schema`). Verified on the real apiserver:
 * `42`, `true`, `[1]`, `""`, `{nam: a}` and `{name: 3}` are refused, `"a"` and `{schema, name}`
 * pass. The engine still checks the exact shape (extra keys) when the metadata is applied.
 */
function unionNode(s: JsonSchemaNode, types: ReadonlySet<string>, branches: readonly JsonSchemaNode[]): OpenApiSchema {
  const out = freeForm(s);
  if (!types.has('number') && !types.has('integer')) Object.assign(out, { minimum: 1, maximum: 0 });
  if (!types.has('array')) Object.assign(out, { minItems: 1, maxItems: 0 });
  if (!types.has('object')) Object.assign(out, { minProperties: 1, maxProperties: 0 });
  if (!types.has('string')) Object.assign(out, { minLength: 1, maxLength: 0 });
  if (!types.has('boolean')) out['not'] = { enum: [true, false] };
  for (const b of branches) {
    const bt = typesOf(b);
    if (bt === null || (bt.size !== 1 && !(bt.size === 2 && bt.has('null')))) continue;
    const typed = toStructural(b);
    const t = typed['type'];
    if (t === 'string') {
      for (const k of ['minLength', 'maxLength', 'pattern'] as const) if (typed[k] !== undefined) out[k] = typed[k];
      if (Array.isArray(typed['enum']) && out['pattern'] === undefined) {
        out['pattern'] = `^(${(typed['enum'] as string[]).map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;
      }
    } else if (t === 'object' && typed['properties'] !== undefined) {
      out['properties'] = typed['properties'];
      if (typed['required'] !== undefined) out['required'] = typed['required'];
    } else if (t === 'array' && (typed['items'] as OpenApiSchema | undefined)?.['type'] !== undefined) {
      out['items'] = typed['items'];
    }
  }
  return out;
}

function freeForm(s: JsonSchemaNode): OpenApiSchema {
  const out: OpenApiSchema = { 'x-kubernetes-preserve-unknown-fields': true };
  if (typeof s['description'] === 'string') out['description'] = s['description'];
  return out;
}

/** Converts one ajv schema node to a structural node. See Note [Structural schemas from ajv schemas]. */
export function toStructural(s: JsonSchemaNode): OpenApiSchema {
  const types = typesOf(s);
  if (types === null) return freeForm(s);
  const nullable = types.delete('null');
  if (types.has('integer') && types.has('number')) types.delete('integer');
  if (types.size !== 1) {
    const branches = (s['oneOf'] ?? s['anyOf']) as JsonSchemaNode[] | undefined;
    return branches === undefined ? freeForm(s) : unionNode(s, types, branches);
  }
  const [type] = [...types] as [string];
  const branches = (s['oneOf'] ?? s['anyOf']) as JsonSchemaNode[] | undefined;
  // One JSON type across all branches: merge them as one node (e.g. two object shapes).
  const merged: JsonSchemaNode = branches === undefined ? s : mergeBranches(s, branches);
  const out: OpenApiSchema = { type };
  if (nullable) out['nullable'] = true;
  for (const k of KEPT_KEYWORDS) if (k in merged) out[k] = merged[k];
  if (Array.isArray(merged['enum'])) out['enum'] = (merged['enum'] as unknown[]).filter((v) => v !== null);
  if ('const' in merged && merged['const'] !== null) out['enum'] = [merged['const']];
  if (type === 'object') {
    const props = merged['properties'] as Record<string, JsonSchemaNode> | undefined;
    const additional = merged['additionalProperties'];
    if (props !== undefined && Object.keys(props).length > 0) {
      out['properties'] = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, toStructural(v)]));
      if (Array.isArray(merged['required']) && merged['required'].length > 0) out['required'] = [...(merged['required'] as string[])];
    } else if (typeof additional === 'object' && additional !== null) {
      out['additionalProperties'] = toStructural(additional as JsonSchemaNode);
    } else {
      out['x-kubernetes-preserve-unknown-fields'] = true;
    }
  }
  if (type === 'array') {
    const items = merged['items'];
    out['items'] = typeof items === 'object' && items !== null ? toStructural(items as JsonSchemaNode) : { 'x-kubernetes-preserve-unknown-fields': true };
  }
  return out;
}

function mergeBranches(parent: JsonSchemaNode, branches: readonly JsonSchemaNode[]): JsonSchemaNode {
  const properties: Record<string, JsonSchemaNode> = {};
  const enums: unknown[] = [];
  let items: JsonSchemaNode | undefined;
  let sawEnumOnly = true;
  for (const b of branches) {
    const p = b['properties'] as Record<string, JsonSchemaNode> | undefined;
    if (p !== undefined) Object.assign(properties, p);
    if (Array.isArray(b['enum'])) enums.push(...(b['enum'] as unknown[]));
    else if ('const' in b) enums.push(b['const']);
    else sawEnumOnly = false;
    if (b['items'] !== undefined) items = b['items'] as JsonSchemaNode;
  }
  const out: Record<string, unknown> = { ...parent };
  delete out['oneOf'];
  delete out['anyOf'];
  if (Object.keys(properties).length > 0) out['properties'] = properties;
  if (sawEnumOnly && enums.length > 0) out['enum'] = enums;
  if (items !== undefined) out['items'] = items;
  return out;
}

/** Adds `maxLength` to every string node below (CEL cost estimation needs bounded strings). */
export function boundStrings(s: OpenApiSchema, maxLength = 4096): OpenApiSchema {
  const out: OpenApiSchema = { ...s };
  if (out['type'] === 'string' && out['maxLength'] === undefined && out['enum'] === undefined) out['maxLength'] = maxLength;
  const props = out['properties'] as Record<string, OpenApiSchema> | undefined;
  if (props !== undefined) out['properties'] = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, boundStrings(v, maxLength)]));
  if (typeof out['items'] === 'object' && out['items'] !== null) out['items'] = boundStrings(out['items'] as OpenApiSchema, maxLength);
  if (typeof out['additionalProperties'] === 'object' && out['additionalProperties'] !== null) {
    out['additionalProperties'] = boundStrings(out['additionalProperties'] as OpenApiSchema, maxLength);
  }
  return out;
}
