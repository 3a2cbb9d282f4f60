/**
 * `create_rest_endpoint` and `drop_rest_endpoint` (same names on /v1/query).
 * An endpoint serves a query of a collection under `/api/rest/<url>`
 * (engine/rest/rest-service.ts). Refused with 400: a taken name
 * (`already-exists`), a missing collection or query (`not-exists`), a URL
 * that is no template or a method that is not an upper-case HTTP method
 * (`parse-failed`); what only the catalog can tell, a template clashing with
 * another endpoint's for a shared method, a subscription, a URL parameter
 * that is no variable of the query, is refused by the build with the
 * endpoint's reason (`invalid-configuration`).
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { parseUrlTemplate } from '../../../catalog/url-template.ts';
import type { RestEndpoint } from '../../../model/document.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { nameSchema, nullableString } from '../../../model/schemas/common.ts';
import { endpointDefinitionSchema, endpointMethodsSchema } from '../../../model/schemas/query-collections.ts';
import { requireCollection } from './collections.ts';

/** `create_rest_endpoint`. */
export const createRestEndpoint = defineOperation<RestEndpoint>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['name', 'url', 'methods', 'definition'],
    properties: {
      name: nameSchema,
      url: { type: 'string', minLength: 1 },
      methods: endpointMethodsSchema,
      definition: endpointDefinitionSchema,
      comment: nullableString,
    },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    if (doc.rest_endpoints.some((e) => e.name === args.name)) {
      throw new EngineError(ErrorCode.AlreadyExists, `rest endpoint "${args.name}" already exists`, { path: argPath(call, 'name') });
    }
    const { collection_name, query_name } = args.definition.query;
    const c = requireCollection(doc, collection_name, call, 'definition.query.collection_name');
    if (!c.definition.queries.some((q) => q.name === query_name)) {
      throw new EngineError(ErrorCode.NotExists, `query "${query_name}" is not in collection "${collection_name}"`, {
        path: argPath(call, 'definition.query.query_name'),
      });
    }
    const template = parseUrlTemplate(args.url);
    if (typeof template === 'string') throw new EngineError(ErrorCode.ParseFailed, template, { path: argPath(call, 'url') });
    const endpoint: RestEndpoint = {
      name: args.name,
      url: args.url,
      methods: [...args.methods],
      definition: { query: { collection_name, query_name } },
      ...(args.comment === undefined ? {} : { comment: args.comment }),
    };
    await ctx.commitEdit({
      doc: { ...doc, rest_endpoints: [...doc.rest_endpoints, endpoint] },
      touched: [{ kind: 'rest_endpoint', name: args.name }],
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});

/** `drop_rest_endpoint`. */
export const dropRestEndpoint = defineOperation<{ name: string }>({
  mutates: true,
  schema: { type: 'object', required: ['name'], properties: { name: nameSchema }, additionalProperties: false },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    if (!doc.rest_endpoints.some((e) => e.name === args.name)) {
      throw new EngineError(ErrorCode.NotExists, `rest endpoint "${args.name}" does not exist`, { path: argPath(call, 'name') });
    }
    await ctx.commitEdit({ doc: { ...doc, rest_endpoints: doc.rest_endpoints.filter((e) => e.name !== args.name) }, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
