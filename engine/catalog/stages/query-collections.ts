/**
 * Stage "query collections" (the last one: it reads the catalog the others
 * built): each collection's queries parsed and validated, the allow-list
 * folded into one map from normalized document to grant, and the REST
 * endpoints resolved. What does not resolve is reported in turn:
 * - a query that is not GraphQL, or does not validate against the admin
 *   schema (a column it selects was dropped): the query, inconsistent;
 * - an allow-list entry of a missing collection;
 * - an endpoint whose collection or query is missing or inconsistent, whose
 *   query is not exactly one query or mutation, whose URL is no template,
 *   names a parameter that is not a variable of the query, or clashes with an
 *   earlier endpoint for one of its methods (Note [URL template clashes]).
 * So dropping a collection an allow-list entry or endpoint uses, or
 * untracking a table a query reads, reports them as dependents (and
 * `cascade` removes them), through the generic drop check of metadata/run.ts.
 * Validating needs the admin schema, which catalog/ cannot build: the check
 * comes from the caller (QueryChecker); without one (unit tests) only the
 * syntax is checked.
 */
import { Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { MetadataDocument } from '../../model/document.ts';
import { allowlistKey, isExecutable } from '../normalize-document.ts';
import { parseUrlTemplate, templatesClash } from '../url-template.ts';
import { inconsistency } from '../inconsistency.ts';
import type { AllowGrant, InconsistentObject, QueryCollectionsInfo, RestEndpointInfo } from '../types.ts';
import type { StageResult } from './stage.ts';

/** A parsed query of a collection. */
interface ResolvedQuery {
  readonly text: string;
  readonly document: DocumentNode;
}

type Loose = Record<string, unknown>;

function isObject(v: unknown): v is Loose {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses a stored query: the document, or why it is not one. */
export function parseCollectionQuery(text: string): DocumentNode | string {
  let document: DocumentNode;
  try {
    document = parse(text, { noLocation: true });
  } catch (e) {
    return `not a valid GraphQL query: ${(e as Error).message}`;
  }
  if (!isExecutable(document)) return 'not a valid GraphQL query: only operations and fragments may appear in it';
  return document;
}

/** Stage "query collections"; `check` validates a document against the admin schema (null: syntax only). */
export function resolveQueryCollections(
  doc: MetadataDocument,
  check: ((document: DocumentNode) => string | null) | null,
): StageResult<QueryCollectionsInfo | undefined> {
  if (doc.query_collections.length === 0 && doc.allowlist.length === 0 && doc.rest_endpoints.length === 0) {
    return { output: undefined, inconsistencies: [] };
  }
  const bad: InconsistentObject[] = [];
  const collections = new Map<string, Map<string, ResolvedQuery>>();
  const known = new Set<string>();
  for (const c of doc.query_collections as readonly unknown[]) {
    const name = isObject(c) && typeof c['name'] === 'string' ? c['name'] : '';
    const def = isObject(c) ? c['definition'] : undefined;
    const queries = isObject(def) && Array.isArray(def['queries']) ? (def['queries'] as unknown[]) : null;
    if (known.has(name) || queries === null) {
      const why = known.has(name) ? `query collection "${name}" is defined twice` : `query collection "${name}" has no list of queries`;
      bad.push(inconsistency({ kind: 'query_collection', collection: name, query: null }, c, why));
      continue;
    }
    known.add(name);
    const resolved = new Map<string, ResolvedQuery>();
    const seen = new Set<string>();
    for (const q of queries) {
      const qname = isObject(q) && typeof q['name'] === 'string' ? q['name'] : '';
      const text = isObject(q) && typeof q['query'] === 'string' ? q['query'] : null;
      const ref = { kind: 'query_collection', collection: name, query: qname } as const;
      const parsed = seen.has(qname) ? 'it occurs twice in the collection' : text === null ? 'it has no query text' : queryProblem(text, check);
      seen.add(qname);
      if (typeof parsed === 'string') {
        bad.push(inconsistency(ref, q, `query "${qname}" in collection "${name}": ${parsed}`));
        continue;
      }
      resolved.set(qname, { text: text ?? '', document: parsed });
    }
    collections.set(name, resolved);
  }

  const allowlist = new Map<string, { global: boolean; roles: Set<string> }>();
  const listed = new Set<string>();
  for (const entry of doc.allowlist) {
    const ref = { kind: 'allowlist', collection: entry.collection } as const;
    const queries = collections.get(entry.collection);
    if (queries === undefined || listed.has(entry.collection)) {
      const why =
        queries === undefined ? `query collection "${entry.collection}" does not exist` : `query collection "${entry.collection}" is in the allow-list twice`;
      bad.push(inconsistency(ref, entry, `allow-list entry: ${why}`));
      continue;
    }
    listed.add(entry.collection);
    const scope = entry.scope ?? { global: true };
    for (const q of queries.values()) {
      const key = allowlistKey(q.document);
      let grant = allowlist.get(key);
      if (grant === undefined) allowlist.set(key, (grant = { global: false, roles: new Set() }));
      if (scope.global) grant.global = true;
      else for (const r of scope.roles ?? []) grant.roles.add(r);
    }
  }

  const endpoints: RestEndpointInfo[] = [];
  const names = new Set<string>();
  for (const e of doc.rest_endpoints) {
    const ref = { kind: 'rest_endpoint', name: e.name } as const;
    const resolved = resolveEndpoint(e, collections, endpoints, names);
    names.add(e.name);
    if (typeof resolved === 'string') bad.push(inconsistency(ref, e, `rest endpoint "${e.name}": ${resolved}`));
    else endpoints.push(resolved);
  }
  const frozen = new Map<string, AllowGrant>(allowlist);
  return { output: { allowlist: frozen, endpoints }, inconsistencies: bad };
}

/** The parsed document of `text`, or why it cannot be stored (not GraphQL, or not valid against the schema). */
function queryProblem(text: string, check: ((document: DocumentNode) => string | null) | null): DocumentNode | string {
  const document = parseCollectionQuery(text);
  if (typeof document === 'string') return document;
  const why = check === null ? null : check(document);
  return why === null ? document : why;
}

/** Resolves one endpoint against the collections and the endpoints before it; a string is why it does not. */
function resolveEndpoint(
  e: MetadataDocument['rest_endpoints'][number],
  collections: ReadonlyMap<string, ReadonlyMap<string, ResolvedQuery>>,
  before: readonly RestEndpointInfo[],
  names: ReadonlySet<string>,
): RestEndpointInfo | string {
  if (names.has(e.name)) return 'the name is used by another endpoint';
  const target = (e.definition as { query?: { collection_name?: unknown; query_name?: unknown } } | undefined)?.query;
  const collection = typeof target?.collection_name === 'string' ? target.collection_name : '';
  const queryName = typeof target?.query_name === 'string' ? target.query_name : '';
  const queries = collections.get(collection);
  if (queries === undefined) return `query collection "${collection}" does not exist or is inconsistent`;
  const q = queries.get(queryName);
  if (q === undefined) return `query "${queryName}" is not in collection "${collection}" (or is inconsistent)`;
  const operations = q.document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operations[0];
  if (operations.length !== 1 || operation === undefined) return `the query "${queryName}" must hold exactly one operation`;
  if (operation.operation === 'subscription') return 'a subscription cannot be a REST endpoint';
  const methods = Array.isArray(e.methods) ? e.methods : [];
  if (methods.length === 0) return 'it has no methods';
  const segments = parseUrlTemplate(typeof e.url === 'string' ? e.url : '');
  if (typeof segments === 'string') return segments;
  const variables = new Set((operation.variableDefinitions ?? []).map((v) => v.variable.name.value));
  for (const s of segments) if (s.param && !variables.has(s.name)) return `the url parameter ":${s.name}" is not a variable of the query "${queryName}"`;
  for (const other of before) {
    const shared = methods.filter((m) => other.methods.includes(m));
    if (shared.length > 0 && templatesClash(segments, other.segments)) {
      return `the url "${e.url}" clashes with "${other.url}" of endpoint "${other.name}" for ${shared.join(', ')}`;
    }
  }
  return {
    name: e.name,
    url: e.url,
    segments,
    methods: [...methods],
    collection,
    queryName,
    query: q.text,
    document: q.document,
    operation,
    comment: e.comment ?? null,
  };
}
