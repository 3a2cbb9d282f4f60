/**
 * Query collections: `create_query_collection`, `rename_query_collection`,
 * `drop_query_collection`, `add_query_to_collection`,
 * `drop_query_from_collection` (the same names on /v1/metadata and the
 * legacy /v1/query). The catalog resolves them (catalog/stages/query-collections.ts):
 * a stored query that does not parse is refused here with `parse-failed`;
 * one that does not validate against the schema is refused by the build
 * (the new query is the touched object). Dropping a collection or a query
 * an allow-list entry or a REST endpoint uses reports them as dependents
 * (`dependency-error`) unless `cascade`, which removes them too.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { parseCollectionQuery } from '../../../catalog/stages/query-collections.ts';
import type { MetadataDocument, QueryCollection } from '../../../model/document.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS, type MetadataCall } from '../../operation.ts';
import { nameSchema, nullableString } from '../../../model/schemas/common.ts';
import { collectionDefinitionSchema } from '../../../model/schemas/query-collections.ts';

/** The collection `name`; `not-exists` when there is none. */
export function requireCollection(doc: MetadataDocument, name: string, call: MetadataCall, key: string): QueryCollection {
  const c = doc.query_collections.find((x) => x.name === name);
  if (c === undefined) throw new EngineError(ErrorCode.NotExists, `query collection "${name}" does not exist`, { path: argPath(call, key) });
  return c;
}

/** Refuses query text that is not a GraphQL document of operations and fragments (`parse-failed`). */
function requireQueryText(text: string, path: string): void {
  const parsed = parseCollectionQuery(text);
  if (typeof parsed === 'string') throw new EngineError(ErrorCode.ParseFailed, parsed, { path });
}

interface CreateArgs {
  name: string;
  definition: QueryCollection['definition'];
  comment?: string | null;
}

/** `create_query_collection`. */
export const createQueryCollection = defineOperation<CreateArgs>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['name', 'definition'],
    properties: { name: nameSchema, definition: collectionDefinitionSchema, comment: nullableString },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    if (doc.query_collections.some((c) => c.name === args.name)) {
      throw new EngineError(ErrorCode.AlreadyExists, `query collection "${args.name}" already exists`, { path: argPath(call, 'name') });
    }
    const seen = new Set<string>();
    args.definition.queries.forEach((q, i) => {
      if (seen.has(q.name)) {
        throw new EngineError(ErrorCode.AlreadyExists, `query "${q.name}" occurs twice in the collection`, {
          path: argPath(call, `definition.queries[${i}].name`),
        });
      }
      seen.add(q.name);
      requireQueryText(q.query, argPath(call, `definition.queries[${i}].query`));
    });
    const collection: QueryCollection = {
      name: args.name,
      definition: { queries: args.definition.queries.map((q) => ({ name: q.name, query: q.query })) },
      ...(args.comment === undefined ? {} : { comment: args.comment }),
    };
    await ctx.commitEdit({
      doc: { ...doc, query_collections: [...doc.query_collections, collection] },
      touched: [
        { kind: 'query_collection', collection: args.name, query: null },
        ...collection.definition.queries.map((q) => ({ kind: 'query_collection', collection: args.name, query: q.name }) as const),
      ],
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});

/** `rename_query_collection`: the allow-list entry and the REST endpoints follow the new name. */
export const renameQueryCollection = defineOperation<{ collection: string; new_name: string }>({
  mutates: true,
  schema: { type: 'object', required: ['collection', 'new_name'], properties: { collection: nameSchema, new_name: nameSchema }, additionalProperties: false },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    requireCollection(doc, args.collection, call, 'collection');
    if (args.new_name === args.collection) return { response: SUCCESS };
    if (doc.query_collections.some((c) => c.name === args.new_name)) {
      throw new EngineError(ErrorCode.AlreadyExists, `query collection "${args.new_name}" already exists`, { path: argPath(call, 'new_name') });
    }
    const from = args.collection;
    const to = args.new_name;
    const next: MetadataDocument = {
      ...doc,
      query_collections: doc.query_collections.map((c) => (c.name === from ? { ...c, name: to } : c)),
      allowlist: doc.allowlist.map((a) => (a.collection === from ? { ...a, collection: to } : a)),
      rest_endpoints: doc.rest_endpoints.map((e) =>
        e.definition?.query?.collection_name === from ? { ...e, definition: { ...e.definition, query: { ...e.definition.query, collection_name: to } } } : e,
      ),
    };
    await ctx.commitEdit({ doc: next, touched: [{ kind: 'query_collection', collection: to, query: null }], path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** `drop_query_collection` (`cascade` required, as in v2). */
export const dropQueryCollection = defineOperation<{ collection: string; cascade: boolean }>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['collection', 'cascade'],
    properties: { collection: nameSchema, cascade: { type: 'boolean' } },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    requireCollection(doc, args.collection, call, 'collection');
    const next = { ...doc, query_collections: doc.query_collections.filter((c) => c.name !== args.collection) };
    await ctx.commitEdit({ doc: next, touched: [], drop: { cascade: args.cascade }, path: argPath(call) });
    return { response: SUCCESS };
  },
});

interface AddQueryArgs {
  collection_name: string;
  query_name: string;
  query: string;
}

/** `add_query_to_collection`. */
export const addQueryToCollection = defineOperation<AddQueryArgs>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['collection_name', 'query_name', 'query'],
    properties: { collection_name: nameSchema, query_name: nameSchema, query: { type: 'string' } },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    const c = requireCollection(doc, args.collection_name, call, 'collection_name');
    if (c.definition.queries.some((q) => q.name === args.query_name)) {
      throw new EngineError(ErrorCode.AlreadyExists, `query "${args.query_name}" already exists in collection "${c.name}"`, {
        path: argPath(call, 'query_name'),
      });
    }
    requireQueryText(args.query, argPath(call, 'query'));
    const updated = { ...c, definition: { ...c.definition, queries: [...c.definition.queries, { name: args.query_name, query: args.query }] } };
    await ctx.commitEdit({
      doc: { ...doc, query_collections: doc.query_collections.map((x) => (x === c ? updated : x)) },
      touched: [{ kind: 'query_collection', collection: c.name, query: args.query_name }],
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});

/** `drop_query_from_collection`: refused while a REST endpoint serves the query (dependency-error). */
export const dropQueryFromCollection = defineOperation<{ collection_name: string; query_name: string }>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['collection_name', 'query_name'],
    properties: { collection_name: nameSchema, query_name: nameSchema },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    const c = requireCollection(doc, args.collection_name, call, 'collection_name');
    if (!c.definition.queries.some((q) => q.name === args.query_name)) {
      throw new EngineError(ErrorCode.NotExists, `query "${args.query_name}" does not exist in collection "${c.name}"`, { path: argPath(call, 'query_name') });
    }
    const updated = { ...c, definition: { ...c.definition, queries: c.definition.queries.filter((q) => q.name !== args.query_name) } };
    await ctx.commitEdit({
      doc: { ...doc, query_collections: doc.query_collections.map((x) => (x === c ? updated : x)) },
      touched: [],
      drop: { cascade: false },
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});
