/**
 * A metadata document → the operator's resources that declare it (the inverse of
 * reconcilers/declarations.ts), checked by folding them back (reconcilers/fold.ts).
 *
 * Note [Export is checked by the fold]
 * Writing resources from a document is easy to get almost right: a field the kind does not have is
 * pruned by the apiserver, a default is added by the controller, a part lands in the wrong list.
 * So nothing here is trusted: each spec is first pruned as the apiserver prunes it (the kind's
 * structural schema, Note [Structural schemas from ajv schemas]), then every resource is folded
 * into an empty document exactly as the controller folds them, and the result is compared with
 * the document (after Note [Secrets become environment variables]) as v2's wire JSON, list items
 * matched by name. Every difference is reported: what the document has and the resources lose
 * (`lost`: remote schema permissions, api_limits, a field no kind has...), and what the fold adds
 * (`added`: a default such as an event trigger's retry_conf). So a conversion never drops anything
 * silently, and the same comparison is the round-trip test.
 *
 * Note [Resource names from metadata names]
 * A resource's metadata.name is a DNS subdomain (lower case, digits, `-`), derived from what it
 * declares: a table is `<table>`, prefixed by its schema when it is not the source's default
 * schema and by its source when that is not `default`; a permission `<table>-<role>-<operation>`;
 * an event trigger `<trigger>` (source-prefixed likewise); the named top-level objects their name;
 * the custom types `custom-types`. The metadata name itself always goes into the spec (`name`,
 * `table`, `role_name`...), so the resource name is only a label and may lose case and `_`. Names
 * that still clash within a kind (`user_role` and `user-role`), or that are longer than 63
 * characters, get `-` and six hex digits of a hash of the object's key, which stays the same from
 * one export to the next.
 */
import { createHash } from 'node:crypto';
import {
  DEFAULT_SCHEMA,
  EMPTY_DOCUMENT,
  toWireDocument,
  type JsonObject,
  type JsonValue,
  type MetadataDocument,
  type QualifiedName,
  type SourceKind,
  type SourceMetadata,
} from '../../engine/model/document.ts';
import { API_VERSION, type KindDefinition } from '../api/v1alpha1/common.ts';
import { CUSTOM_TYPE_SECTIONS } from '../api/v1alpha1/custom-types.ts';
import { TARGET_KINDS } from '../api/v1alpha1/index.ts';
import { PERMISSION_OPERATIONS } from '../api/v1alpha1/permission.ts';
import type { OpenApiSchema } from '../api/v1alpha1/structural.ts';
import type { TargetResource } from '../reconcilers/declarations.ts';
import { foldResources } from '../reconcilers/fold.ts';
import { canonicalJson } from '../reconcilers/objects.ts';
import { envNamesIn, extractSecrets, valuesLeftInClear, type ExtractedSecret } from './secrets.ts';

/** One resource to write. */
export interface ExportedResource {
  readonly kind: string;
  readonly name: string;
  /** The manifest (apiVersion, kind, metadata, spec). */
  readonly manifest: { readonly apiVersion: string; readonly kind: string; readonly metadata: JsonObject; readonly spec: JsonObject };
}

/** A difference between the document and what its resources fold back to. */
export interface RoundTripDifference {
  /** Where, in v2's wire document: `remote_schemas[countries].permissions`. */
  readonly path: string;
  /** `lost`: the document has it and the resources do not; `added`: the fold adds it; `changed`: both, different. */
  readonly change: 'lost' | 'added' | 'changed';
  /** Which kind would carry it (null: no kind has this part of the document). */
  readonly kind: string | null;
}

/** The conversion. */
export interface ExportResult {
  readonly resources: readonly ExportedResource[];
  readonly secrets: readonly ExtractedSecret[];
  /** Every difference of the round trip (Note [Export is checked by the fold]). */
  readonly differences: readonly RoundTripDifference[];
  /** Resources the fold did not apply, with why (should not happen; reported when it does). */
  readonly refused: readonly string[];
  /** The document the resources stand for (secrets replaced by references): what an engine will export. */
  readonly expected: MetadataDocument;
  /** Environment variables the metadata read already (`from_env`...), which the engine must have too. */
  readonly referenced: readonly string[];
  /** Values written as they are that may hold a secret (no reference exists for them): check them. */
  readonly check: readonly string[];
}

/** Options of {@link documentToResources}. */
export interface ExportOptions {
  /** `spec.engineRef.name` of every resource (none: the namespace's only Engine). */
  readonly engine?: string;
  /** `metadata.namespace` of every resource. */
  readonly namespace?: string;
  /** `spec.deletionPolicy` of every resource (none: the kinds' default, Delete). */
  readonly deletionPolicy?: 'Delete' | 'Orphan';
}

type Spec = Record<string, unknown>;

interface Draft {
  readonly kind: string;
  /** The name before collision handling. */
  readonly base: string;
  /** The object key it stands for (for the collision hash). */
  readonly identity: string;
  readonly spec: Spec;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value with null-valued object keys removed (null and absent mean the same in metadata). */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = dropNulls(x);
    return out;
  }
  return v;
}

function hash6(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 6);
}

/** A DNS-subdomain-safe name from parts (Note [Resource names from metadata names]). */
function dnsName(parts: readonly string[], fallback: string): string {
  const name = parts
    .map((p) =>
      p
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, ''),
    )
    .filter((p) => p !== '')
    .join('-');
  return name === '' ? fallback : name;
}

function tableParts(s: SourceMetadata, t: QualifiedName): string[] {
  const parts: string[] = [];
  if (s.name !== 'default') parts.push(s.name);
  if (t.schema !== DEFAULT_SCHEMA[s.kind]) parts.push(t.schema);
  parts.push(t.name);
  return parts;
}

/** A table or function name as a spec writes it: bare in the source's default schema. */
function nameInSpec(kind: SourceKind, t: QualifiedName): JsonValue {
  if (t.schema === DEFAULT_SCHEMA[kind]) return t.name;
  return kind === 'bigquery' ? { dataset: t.schema, name: t.name } : { schema: t.schema, name: t.name };
}

function tableKeyText(s: string, t: QualifiedName): string {
  return `${s}/${t.schema}.${t.name}`;
}

/** The spec fields of `o` listed in `keys`, nulls left out. */
function pick(o: JsonObject, keys: readonly string[]): Spec {
  const out: Spec = {};
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) out[k] = dropNulls(o[k]);
  return out;
}

function drafts(doc: MetadataDocument): Draft[] {
  const out: Draft[] = [];
  for (const s of doc.sources) {
    out.push({
      kind: 'Source',
      base: dnsName([s.name], 'source'),
      identity: `source/${s.name}`,
      spec: { name: s.name, kind: s.kind, ...pick(s as unknown as JsonObject, ['configuration', 'customization']) },
    });
    for (const t of s.tables) {
      const table = nameInSpec(s.kind, t.table);
      const at = { source: s.name, table };
      const tt: Spec = { ...at };
      if (t.configuration !== undefined) tt['configuration'] = dropNulls(t.configuration);
      if (t.is_enum !== undefined) tt['is_enum'] = t.is_enum;
      for (const k of ['object_relationships', 'array_relationships', 'computed_fields', 'remote_relationships'] as const) {
        if (t[k].length > 0) tt[k] = dropNulls(t[k]);
      }
      const tp = tableParts(s, t.table);
      out.push({ kind: 'TrackedTable', base: dnsName(tp, 'table'), identity: `table/${tableKeyText(s.name, t.table)}`, spec: tt });
      for (const operation of PERMISSION_OPERATIONS) {
        for (const p of t[`${operation}_permissions`]) {
          out.push({
            kind: 'Permission',
            base: dnsName([...tp, p.role, operation], 'permission'),
            identity: `permission/${tableKeyText(s.name, t.table)}/${p.role}/${operation}`,
            spec: { ...at, role: p.role, operation, ...pick(p as unknown as JsonObject, ['permission', 'comment']) },
          });
        }
      }
      for (const e of t.event_triggers) {
        const name = String(e['name']);
        const def = isObject(e['definition']) ? e['definition'] : {};
        out.push({
          kind: 'EventTrigger',
          base: dnsName(s.name === 'default' ? [name] : [s.name, name], 'event-trigger'),
          identity: `event_trigger/${tableKeyText(s.name, t.table)}/${name}`,
          spec: {
            name,
            ...at,
            ...pick(def, ['insert', 'update', 'delete', 'enable_manual']),
            ...pick(e, ['webhook', 'webhook_from_env', 'headers', 'retry_conf', 'request_transform', 'response_transform']),
          },
        });
      }
    }
    for (const f of s.functions) {
      const spec: Spec = { source: s.name, function: nameInSpec(s.kind, f.function), ...pick(f as unknown as JsonObject, ['configuration', 'comment']) };
      if (isObject(spec['configuration']) && Object.keys(spec['configuration']).length === 0) delete spec['configuration'];
      if ((f.permissions ?? []).length > 0) spec['permissions'] = (f.permissions ?? []).map((p) => ({ role: p.role }));
      out.push({ kind: 'Function', base: dnsName(tableParts(s, f.function), 'function'), identity: `function/${tableKeyText(s.name, f.function)}`, spec });
    }
  }
  const named = (kind: string, identity: string, list: readonly JsonObject[], fields: readonly string[], nameKey = 'name'): void => {
    for (const o of list) {
      const name = String(o[nameKey]);
      out.push({ kind, base: dnsName([name], kind.toLowerCase()), identity: `${identity}/${name}`, spec: { [nameKey]: name, ...pick(o, fields) } });
    }
  };
  named('RemoteSchema', 'remote_schema', doc.remote_schemas, ['definition', 'comment']);
  named('CronTrigger', 'cron_trigger', doc.cron_triggers, [
    'webhook',
    'schedule',
    'payload',
    'headers',
    'retry_conf',
    'include_in_metadata',
    'comment',
    'request_transform',
    'response_transform',
  ]);
  named('InheritedRole', 'inherited_role', doc.inherited_roles as unknown as JsonObject[], ['role_set'], 'role_name');
  for (const a of doc.actions) {
    const name = String(a['name']);
    const spec: Spec = { name, ...pick(a, ['definition', 'comment']) };
    const perms = Array.isArray(a['permissions']) ? a['permissions'].filter(isObject) : [];
    if (perms.length > 0) spec['permissions'] = perms.map((p) => pick(p, ['role', 'comment']));
    out.push({ kind: 'Action', base: dnsName([name], 'action'), identity: `action/${name}`, spec });
  }
  const ct = doc.custom_types;
  if (ct !== null && CUSTOM_TYPE_SECTIONS.some((k) => Array.isArray(ct[k]) && (ct[k] as JsonValue[]).length > 0)) {
    const spec: Spec = {};
    for (const k of CUSTOM_TYPE_SECTIONS) if (Array.isArray(ct[k]) && (ct[k] as JsonValue[]).length > 0) spec[k] = dropNulls(ct[k]);
    out.push({ kind: 'CustomTypes', base: 'custom-types', identity: 'custom_types', spec });
  }
  for (const c of doc.query_collections) {
    const spec: Spec = { name: c.name, queries: dropNulls(c.definition.queries), ...pick(c as unknown as JsonObject, ['comment']) };
    const entry = doc.allowlist.find((e) => e.collection === c.name);
    if (entry !== undefined) spec['allowlist'] = entry.scope === undefined ? {} : { scope: dropNulls(entry.scope) };
    out.push({ kind: 'QueryCollection', base: dnsName([c.name], 'querycollection'), identity: `query_collection/${c.name}`, spec });
  }
  named('RestEndpoint', 'rest_endpoint', doc.rest_endpoints as unknown as JsonObject[], ['url', 'methods', 'definition', 'comment']);
  return out;
}

/** Unique names within each kind (Note [Resource names from metadata names]). */
function assignNames(list: readonly Draft[]): string[] {
  const MAX = 63;
  const capped = list.map((d) => (d.base.length > MAX ? `${d.base.slice(0, MAX - 7).replace(/-+$/, '')}-${hash6(d.identity)}` : d.base));
  const count = new Map<string, number>();
  list.forEach((d, i) => count.set(`${d.kind}/${capped[i] ?? ''}`, (count.get(`${d.kind}/${capped[i] ?? ''}`) ?? 0) + 1));
  return list.map((d, i) => {
    const n = capped[i] ?? d.base;
    if ((count.get(`${d.kind}/${n}`) ?? 0) < 2) return n;
    return `${n.slice(0, MAX - 7).replace(/-+$/, '')}-${hash6(d.identity)}`;
  });
}

/** A value pruned as the apiserver prunes it under a structural schema. */
export function pruneToSchema(v: unknown, s: OpenApiSchema): unknown {
  if (Array.isArray(v)) {
    const items = s['items'] as OpenApiSchema | undefined;
    return items === undefined ? v : v.map((x) => pruneToSchema(x, items));
  }
  if (!isObject(v)) return v;
  const props = s['properties'] as Record<string, OpenApiSchema> | undefined;
  const additional = s['additionalProperties'] as OpenApiSchema | undefined;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const p = props?.[k] ?? (typeof additional === 'object' ? additional : undefined);
    if (p !== undefined) out[k] = pruneToSchema(x, p);
    else if (preserve) out[k] = x;
  }
  return out;
}

const KIND_ORDER = TARGET_KINDS.map((k) => k.kind);

function kindDefinition(kind: string): KindDefinition {
  const k = TARGET_KINDS.find((d) => d.kind === kind);
  if (k === undefined) throw new Error(`unknown kind ${kind}`);
  return k;
}

/** The kind that carries a wire path (null: none does). */
function kindOfPath(path: string): string | null {
  if (/^sources\[[^\]]*\]\.tables\[[^\]]*\]\.(insert|select|update|delete)_permissions/.test(path)) return 'Permission';
  if (/^sources\[[^\]]*\]\.tables\[[^\]]*\]\.event_triggers/.test(path)) return 'EventTrigger';
  if (/^sources\[[^\]]*\]\.tables/.test(path)) return 'TrackedTable';
  if (/^sources\[[^\]]*\]\.functions/.test(path)) return 'Function';
  const top: Record<string, string> = {
    sources: 'Source',
    remote_schemas: 'RemoteSchema',
    cron_triggers: 'CronTrigger',
    inherited_roles: 'InheritedRole',
    actions: 'Action',
    custom_types: 'CustomTypes',
    query_collections: 'QueryCollection',
    allowlist: 'QueryCollection',
    rest_endpoints: 'RestEndpoint',
  };
  return top[/^[a-z_]+/.exec(path)?.[0] ?? ''] ?? null;
}

/** What identifies a list item (null: the list is compared by position). */
function itemId(v: unknown): string | null {
  if (!isObject(v)) return null;
  for (const k of ['name', 'role', 'role_name', 'collection']) if (typeof v[k] === 'string') return v[k];
  for (const k of ['table', 'function']) {
    const t = v[k];
    if (isObject(t) && typeof t['name'] === 'string') return `${String(t['schema'] ?? t['dataset'] ?? '')}.${t['name']}`;
  }
  return null;
}

function idsOf(list: readonly unknown[]): string[] | null {
  const ids = list.map(itemId);
  if (ids.some((x) => x === null) || new Set(ids).size !== ids.length) return null;
  return ids as string[];
}

/** Differences between two wire values, list items matched by identity. */
function diffWire(a: unknown, b: unknown, path: string, out: RoundTripDifference[]): void {
  if (canonicalJson(a) === canonicalJson(b)) return;
  const push = (p: string, change: RoundTripDifference['change']): void => {
    out.push({ path: p, change, kind: kindOfPath(p) });
  };
  const sub = (k: string): string => (path === '' ? k : `${path}.${k}`);
  if (isObject(a) && isObject(b)) {
    for (const k of Object.keys(a)) if (!(k in b)) push(sub(k), 'lost');
    for (const k of Object.keys(b)) if (!(k in a)) push(sub(k), 'added');
    for (const k of Object.keys(a)) if (k in b) diffWire(a[k], b[k], sub(k), out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const ia = idsOf(a);
    const ib = idsOf(b);
    if (ia !== null && ib !== null) {
      const bi = new Map(ib.map((id, i) => [id, b[i]]));
      const ai = new Map(ia.map((id, i) => [id, a[i]]));
      for (const [id, x] of ai) {
        const y = bi.get(id);
        if (y === undefined) push(`${path}[${id}]`, 'lost');
        else diffWire(x, y, `${path}[${id}]`, out);
      }
      for (const id of bi.keys()) if (!ai.has(id)) push(`${path}[${id}]`, 'added');
      return;
    }
  }
  push(path, 'changed');
}

/** The wire form of a document, for comparison: nulls and empty custom type sections left out. */
function comparable(doc: MetadataDocument): unknown {
  const wire = dropNulls(toWireDocument(doc)) as Record<string, unknown>;
  const ct = wire['custom_types'];
  if (isObject(ct)) {
    const kept = Object.fromEntries(Object.entries(ct).filter(([, v]) => !(Array.isArray(v) && v.length === 0)));
    if (Object.keys(kept).length === 0) delete wire['custom_types'];
    else wire['custom_types'] = kept;
  }
  return wire;
}

/**
 * The resources that declare `doc`, with its secrets moved out and every difference of the round
 * trip. See Note [Export is checked by the fold].
 */
export function documentToResources(doc: MetadataDocument, options: ExportOptions = {}): ExportResult {
  const { document: expected, secrets } = extractSecrets(doc);
  const list = drafts(expected);
  const names = assignNames(list);
  const resources: ExportedResource[] = list.map((d, i) => {
    const fields: Spec = {};
    if (options.engine !== undefined) fields['engineRef'] = { name: options.engine };
    if (options.deletionPolicy !== undefined) fields['deletionPolicy'] = options.deletionPolicy;
    const spec = pruneToSchema({ ...fields, ...d.spec }, kindDefinition(d.kind).specSchema) as JsonObject;
    const metadata: Record<string, JsonValue> = { name: names[i] ?? d.base };
    if (options.namespace !== undefined) metadata['namespace'] = options.namespace;
    return { kind: d.kind, name: names[i] ?? d.base, manifest: { apiVersion: API_VERSION, kind: d.kind, metadata, spec } };
  });
  resources.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  // Fold them as the controller would, into an empty engine.
  const targets: TargetResource[] = resources.map((r, i) => ({
    apiVersion: API_VERSION,
    kind: r.kind,
    metadata: { name: r.name, namespace: options.namespace ?? 'default', uid: `export-${i}`, creationTimestamp: '2000-01-01T00:00:00Z' },
    spec: r.manifest.spec as TargetResource['spec'],
  }));
  const fold = foldResources({ current: EMPTY_DOCUMENT, resources: targets, previousManaged: [], policy: 'Merge' });
  const refused: string[] = [];
  for (const [key, r] of fold.results) if (r.state !== 'applied') refused.push(`${key}: ${r.state}${'message' in r ? `: ${r.message}` : ''}`);
  const differences: RoundTripDifference[] = [];
  diffWire(comparable(expected), comparable(fold.desired), '', differences);
  const moved = new Set(secrets.map((s) => s.env));
  const referenced = [...envNamesIn(expected, new Set())].filter((e) => !moved.has(e)).sort();
  return { resources, secrets, differences, refused, expected, referenced, check: valuesLeftInClear(expected) };
}

/** The wire document of a normalized one, as compared by {@link documentToResources} (for tests and callers). */
export function roundTripDifferences(expected: MetadataDocument, actual: MetadataDocument): RoundTripDifference[] {
  const out: RoundTripDifference[] = [];
  diffWire(comparable(expected), comparable(actual), '', out);
  return out;
}
