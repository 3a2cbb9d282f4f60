/**
 * The query the API explorer opens on: one of the role's own root fields
 * with a few of its scalar fields, read from the role's schema (two small
 * introspection queries with the explorer's headers), instead of GraphiQL's
 * stock welcome comment. A role whose schema has no root field is told so.
 */
import { apiUrl } from '../../api.ts';

interface TypeRef {
  readonly kind: string;
  readonly name: string | null;
  readonly ofType?: TypeRef | null;
}

interface Field {
  readonly name: string;
  readonly args: ReadonlyArray<{ readonly name: string; readonly type: TypeRef }>;
  readonly type: TypeRef;
}

/** What the role's schema offers: a query to start from, or that it is empty. */
export type Sample = { readonly kind: 'query'; readonly query: string } | { readonly kind: 'empty' } | { readonly kind: 'unknown'; readonly reason: string };

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
const ROOTS = `{ __schema { queryType { fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } } mutationType { fields { name } } } }`;
const FIELDS = `query ($name: String!) { __type(name: $name) { fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } } }`;
/** The field v2 (and Engine) puts in a query root that has nothing else. */
const PLACEHOLDER = 'no_queries_available';

function named(t: TypeRef): TypeRef {
  return t.ofType != null ? named(t.ofType) : t;
}

function isList(t: TypeRef): boolean {
  return t.kind === 'LIST' || (t.kind === 'NON_NULL' && t.ofType != null && isList(t.ofType));
}

const required = (f: Field) => f.args.some((a) => a.type.kind === 'NON_NULL');

async function ask<T>(query: string, variables: Record<string, unknown>, headers: Record<string, string>): Promise<T> {
  const res = await fetch(apiUrl('v1/graphql'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: Array<{ message: string }> };
  if (body.errors !== undefined && body.errors.length > 0) throw new Error(body.errors.map((e) => e.message).join('; '));
  if (body.data === undefined) throw new Error(`HTTP ${res.status}`);
  return body.data;
}

/**
 * The sample for the role the headers name: the first root field returning a list of objects
 * (a table's), or else any object or scalar field without required arguments.
 */
export async function sampleQuery(headers: Record<string, string>): Promise<Sample> {
  try {
    const roots = await ask<{ __schema: { queryType: { fields: Field[] | null }; mutationType: { fields: Field[] | null } | null } }>(ROOTS, {}, headers);
    const fields = (roots.__schema.queryType.fields ?? []).filter((f) => f.name !== PLACEHOLDER && !f.name.startsWith('__'));
    // Subscriptions mirror the query root (the placeholder too): a schema without queries and mutations is empty.
    if (fields.length === 0 && (roots.__schema.mutationType?.fields ?? []).length === 0) return { kind: 'empty' };
    const usable = fields.filter((f) => !required(f));
    const pick = usable.find((f) => isList(f.type) && named(f.type).kind === 'OBJECT') ?? usable.find((f) => named(f.type).kind === 'OBJECT') ?? usable[0];
    if (pick === undefined) return { kind: 'unknown', reason: 'no root field can be queried without arguments' };
    const limit = pick.args.some((a) => a.name === 'limit') ? '(limit: 10)' : '';
    const type = named(pick.type);
    if (type.kind !== 'OBJECT' || type.name === null) return { kind: 'query', query: `query {\n  ${pick.name}${limit}\n}\n` };
    const t = await ask<{ __type: { fields: Field[] } | null }>(FIELDS, { name: type.name }, headers);
    const scalars = (t.__type?.fields ?? []).filter((f) => !required(f) && ['SCALAR', 'ENUM'].includes(named(f.type).kind)).slice(0, 6);
    const body = (scalars.length > 0 ? scalars.map((f) => f.name) : ['__typename']).map((n) => `    ${n}`).join('\n');
    return { kind: 'query', query: `query {\n  ${pick.name}${limit} {\n${body}\n  }\n}\n` };
  } catch (e) {
    return { kind: 'unknown', reason: e instanceof Error ? e.message : String(e) };
  }
}
