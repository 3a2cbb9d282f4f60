/**
 * `create_action`, `update_action`, `drop_action`, `create_action_permission`,
 * `drop_action_permission` (the same names on /v1/metadata and the legacy
 * /v1/query). The definition is checked by the actions catalog stage
 * (actions/resolve.ts): an action it finds inconsistent is refused with the
 * reason and nothing is stored.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { resolveEnv } from '../../../cli/env.ts';
import type { JsonObject, MetadataDocument } from '../../../model/document.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS, type ActionDataServices, type MetadataCall, type RunContext } from '../../operation.ts';
import type { Effect } from '../../effects.ts';

type Loose = Record<string, unknown>;

function findAction(doc: MetadataDocument, name: string): Loose | undefined {
  return (doc.actions as Loose[]).find((a) => a['name'] === name);
}

function requireAction(ctx: RunContext, name: string, call: MetadataCall, key: string): Loose {
  const a = findAction(ctx.state.doc, name);
  if (a === undefined) throw new EngineError(ErrorCode.NotExists, `action "${name}" does not exist`, { path: argPath(call, key) });
  return a;
}

function withAction(doc: MetadataDocument, name: string, f: (a: Loose) => Loose | null): MetadataDocument {
  const actions: JsonObject[] = [];
  for (const a of doc.actions as Loose[]) {
    if (a['name'] !== name) actions.push(a as JsonObject);
    else {
      const next = f(a);
      if (next !== null) actions.push(next as JsonObject);
    }
  }
  return { ...doc, actions };
}

const definitionSchema = {
  type: 'object',
  required: ['handler', 'output_type'],
  properties: {
    kind: { enum: ['synchronous', 'asynchronous'] },
    type: { enum: ['query', 'mutation'] },
    arguments: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        required: ['name', 'type'],
        properties: { name: { type: 'string' }, type: { type: 'string' }, description: { type: ['string', 'null'] } },
      },
    },
    output_type: { type: 'string' },
    handler: { type: 'string' },
    headers: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, value: { type: 'string' }, value_from_env: { type: 'string' } },
      },
    },
    forward_client_headers: { type: 'boolean' },
    timeout: { type: ['integer', 'null'], minimum: 1 },
    request_transform: { type: ['object', 'null'] },
    response_transform: { type: ['object', 'null'] },
  },
} as const;

interface ActionArgs {
  readonly name: string;
  readonly definition: Loose;
  readonly comment?: string | null;
}

const actionArgsSchema = {
  type: 'object',
  required: ['name', 'definition'],
  additionalProperties: false,
  properties: { name: { type: 'string' }, definition: definitionSchema, comment: { type: ['string', 'null'] } },
} as const;

/** Prefixes of the engine's own settings, which a handler header may not read (their values hold the admin secret, database URLs). */
const RESERVED_ENV_PREFIXES = ['HASURA_GRAPHQL_', 'ENGINE_GRAPHQL_'] as const;

/**
 * v2's HeaderConf parse (parse-failed at `definition.headers[i]`, its tests-py
 * actions/metadata/create_with_headers.yaml): one of `value` and
 * `value_from_env`, and no variable of the engine's own settings; a variable
 * that is not set is refused at the header too.
 */
function checkHeaders(definition: Loose, call: MetadataCall): void {
  const headers = definition['headers'];
  if (!Array.isArray(headers)) return;
  headers.forEach((h: Loose, i) => {
    const at = `${argPath(call, 'definition')}.headers[${i}]`;
    const hasValue = h['value'] !== undefined;
    const env = h['value_from_env'];
    if (!hasValue && env === undefined) throw new EngineError(ErrorCode.ParseFailed, 'expecting value or value_from_env keys', { path: at });
    if (hasValue && env !== undefined) throw new EngineError(ErrorCode.ParseFailed, 'expecting only one of value or value_from_env keys', { path: at });
    const reserved = RESERVED_ENV_PREFIXES.find((p) => typeof env === 'string' && env.startsWith(p));
    if (reserved !== undefined) {
      throw new EngineError(ErrorCode.ParseFailed, `env variables start with "${reserved}" are not allowed for value_from_env`, { path: at });
    }
    // v2 finds an unset variable only when calling the handler ("missing env var"); the catalog refuses it (actions/resolve.ts), here at the header.
    if (typeof env === 'string' && resolveEnv(env) === undefined) {
      throw new EngineError(ErrorCode.InvalidConfiguration, `the environment variable "${env}" of the header "${String(h['name'])}" is not set`, { path: at });
    }
  });
}

/** Drops `null` members v2 clients send for "not given" (`timeout: null`, `request_transform: null`). */
function cleanDefinition(d: Loose): Loose {
  return Object.fromEntries(Object.entries(d).filter(([, v]) => v !== null));
}

/** `create_action`. */
export const createAction = defineOperation<ActionArgs>({
  mutates: true,
  schema: actionArgsSchema,
  async run(ctx, args, call) {
    if (findAction(ctx.state.doc, args.name) !== undefined) {
      throw new EngineError(ErrorCode.AlreadyExists, `action "${args.name}" already exists`, { path: argPath(call, 'name') });
    }
    checkHeaders(args.definition, call);
    const entry: Loose = { name: args.name, definition: cleanDefinition(args.definition) };
    if (typeof args.comment === 'string') entry['comment'] = args.comment;
    const doc = { ...ctx.state.doc, actions: [...ctx.state.doc.actions, entry as JsonObject] };
    await ctx.commitEdit({ doc, touched: [{ kind: 'action', name: args.name }], path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** `update_action`: replaces the definition (and the comment when given); permissions stay. */
export const updateAction = defineOperation<ActionArgs>({
  mutates: true,
  schema: actionArgsSchema,
  async run(ctx, args, call) {
    requireAction(ctx, args.name, call, 'name');
    checkHeaders(args.definition, call);
    const doc = withAction(ctx.state.doc, args.name, (a) => {
      const next: Loose = { ...a, definition: cleanDefinition(args.definition) };
      if (args.comment !== undefined) {
        if (args.comment === null) delete next['comment'];
        else next['comment'] = args.comment;
      }
      return next;
    });
    await ctx.commitEdit({ doc, touched: [{ kind: 'action', name: args.name }], path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** The effect deleting the stored data of the actions a request drops. */
interface ClearActionData extends Effect {
  readonly actions: Set<string>;
}

const CLEAR_KEY = 'clear-action-data';

function clearActionData(data: ActionDataServices): ClearActionData {
  const actions = new Set<string>();
  return {
    key: CLEAR_KEY,
    description: 'the stored data of dropped actions',
    actions,
    inStoreTransaction: async (tx) => {
      for (const name of actions) await data.clearIn(tx, name);
    },
    beforeCommit: async () => {},
    afterCommit: async () => {},
    abandon: async () => {},
  };
}

/** `drop_action`: the action and its permissions; `clear_data` (default true) also deletes an async action's stored requests. */
export const dropAction = defineOperation<{ name: string; clear_data?: boolean }>({
  mutates: true,
  schema: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string' }, clear_data: { type: 'boolean' } } },
  async run(ctx, args, call) {
    requireAction(ctx, args.name, call, 'name');
    const doc = withAction(ctx.state.doc, args.name, () => null);
    await ctx.commitEdit({ doc, touched: [], drop: { cascade: false }, path: argPath(call) });
    const data = ctx.actionData;
    if (args.clear_data !== false && data !== undefined) {
      // Deleted in the transaction that stores the document (Note [Effects]): a request that fails keeps them.
      const effect = await ctx.effect<ClearActionData>(CLEAR_KEY, async () => await Promise.resolve(clearActionData(data)));
      effect.actions.add(args.name);
    }
    return { response: SUCCESS };
  },
});

interface PermissionArgs {
  readonly action: string;
  readonly role: string;
  readonly comment?: string | null;
  readonly definition?: unknown;
}

/** `create_action_permission`. */
export const createActionPermission = defineOperation<PermissionArgs>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['action', 'role'],
    additionalProperties: false,
    properties: {
      action: { type: 'string' },
      role: { type: 'string', minLength: 1 },
      comment: { type: ['string', 'null'] },
      definition: { type: ['object', 'null'] },
    },
  },
  async run(ctx, args, call) {
    const a = requireAction(ctx, args.action, call, 'action');
    if (args.role === 'admin')
      throw new EngineError(ErrorCode.BadRequest, 'the admin role may run every action; no permission is needed', { path: argPath(call, 'role') });
    const perms = (a['permissions'] ?? []) as Loose[];
    if (perms.some((p) => p['role'] === args.role)) {
      throw new EngineError(ErrorCode.AlreadyExists, `permission for role "${args.role}" is already defined on action "${args.action}"`, {
        path: argPath(call, 'role'),
      });
    }
    const perm: Loose = { role: args.role };
    if (typeof args.comment === 'string') perm['comment'] = args.comment;
    const doc = withAction(ctx.state.doc, args.action, (x) => ({ ...x, permissions: [...perms, perm] }));
    await ctx.commitEdit({ doc, touched: [{ kind: 'action', name: args.action }], path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** `drop_action_permission`. */
export const dropActionPermission = defineOperation<PermissionArgs>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['action', 'role'],
    additionalProperties: false,
    properties: { action: { type: 'string' }, role: { type: 'string' } },
  },
  async run(ctx, args, call) {
    const a = requireAction(ctx, args.action, call, 'action');
    const perms = (a['permissions'] ?? []) as Loose[];
    if (!perms.some((p) => p['role'] === args.role)) {
      throw new EngineError(ErrorCode.NotExists, `permission for role "${args.role}" is not defined on action "${args.action}"`, {
        path: argPath(call, 'role'),
      });
    }
    const rest = perms.filter((p) => p['role'] !== args.role);
    const doc = withAction(ctx.state.doc, args.action, (x) => {
      const next: Loose = { ...x, permissions: rest };
      if (rest.length === 0) delete next['permissions'];
      return next;
    });
    await ctx.commitEdit({ doc, touched: [{ kind: 'action', name: args.action }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
