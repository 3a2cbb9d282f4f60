/**
 * The `remote` plan step (Note [Plan steps] in plan.ts): the root fields of
 * one remote schema in one operation become one remote request. Planning
 * joins the fields' texts (graphql/to-ir/remote.ts, Note [Remote root
 * fields]) under generated aliases into the remote document; binding picks
 * the client's variables and the session presets; running sends it with the
 * configured headers, the client's when `forward_client_headers`, and the
 * session as `X-Engine-*` headers, and writes the `data` members under the
 * client's aliases with customized `__typename`s. Remote errors become
 * `remote-schema-error` with their path in the client's response keys.
 */
import type * as ir from '../ir/index.ts';
import { forwardedClientHeaders } from '../auth/forwarded-headers.ts';
import type { Session } from '../auth/session.ts';
import type { ClientHeaders } from '../request-context.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { RemoteNames } from '../remote/customize.ts';
import { postGraphql, RemoteCallError, type RemoteAnswer } from '../remote/http-client.ts';
import type { RemoteSchemaInfo } from '../remote/types.ts';

/** Where one remote field's value goes: under `alias` (inside the namespace member `outer`, if any). */
interface RemoteSlot {
  /** The generated alias in the remote document. */
  readonly key: string;
  readonly typenames: ir.TypenameTree | null;
}

/** A member of the step's result object. */
export type RemoteMember =
  | { readonly alias: string; readonly slot: RemoteSlot }
  | {
      readonly alias: string;
      readonly members: ReadonlyArray<{ readonly alias: string; readonly slot: RemoteSlot } | { readonly alias: string; readonly json: string }>;
    };

/** One remote request: the root fields of one remote schema. */
export interface RemoteStepBody {
  readonly remote: RemoteSchemaInfo;
  /** The remote document. */
  readonly query: string;
  /** Client variables it declares. */
  readonly variables: readonly string[];
  readonly sessionPresets: readonly ir.SessionPreset[];
  readonly members: readonly RemoteMember[];
  /** Client response keys by generated alias, for error paths. */
  readonly aliases: ReadonlyMap<string, string>;
}

/** Plans the remote fields of one remote schema (same operation kind) as one request. */
export function planRemoteRequest(
  remote: RemoteSchemaInfo,
  operation: 'query' | 'mutation' | 'subscription',
  fields: readonly ir.RemoteRootField[],
): RemoteStepBody {
  const defs = new Map<string, string>();
  const presets: ir.SessionPreset[] = [];
  const texts: string[] = [];
  const aliases = new Map<string, string>();
  let n = 0;
  const slot = (part: ir.RemoteFieldPart, clientKey: string): RemoteSlot => {
    const key = `r${n++}`;
    texts.push(`${key}: ${part.text}`);
    aliases.set(key, clientKey);
    for (const [v, t] of part.variables) defs.set(v, t);
    presets.push(...part.sessionPresets);
    return { key, typenames: part.typenames };
  };
  const members: RemoteMember[] = fields.map((f) =>
    f.kind === 'remote'
      ? { alias: f.alias, slot: slot(f.part, f.alias) }
      : { alias: f.alias, members: f.members.map((m) => ('json' in m ? m : { alias: m.alias, slot: slot(m.part, `${f.alias}.${m.alias}`) })) },
  );
  const vars = [...defs].map(([v, t]) => `$${v}: ${t}`);
  const query = `${operation}${vars.length === 0 ? '' : ` (${vars.join(', ')})`} { ${texts.join(' ')} }`;
  const sessionVars = new Set(presets.map((p) => p.variable));
  return { remote, query, variables: [...defs.keys()].filter((v) => !sessionVars.has(v)), sessionPresets: presets, members, aliases };
}

function coerceSession(value: string, how: ir.SessionPreset['coerce'], name: string): unknown {
  switch (how) {
    case 'string':
      return value;
    case 'boolean':
      if (value === 'true' || value === 'false') return value === 'true';
      break;
    case 'int':
      if (/^-?\d+$/.test(value)) return Number(value);
      break;
    case 'float':
      if (value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      break;
  }
  throw new EngineError(ErrorCode.ValidationFailed, `session variable "${name}" is not a valid ${how}`, { path: '$' });
}

/** A remote step bound for one request: the request body and the session's headers. */
export interface BoundRemote {
  readonly body: string;
  readonly session: Session;
}

/** The values of session-preset variables, from the session. */
export function sessionPresetValues(presets: readonly ir.SessionPreset[], session: Session): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const p of presets) {
    const value = session.variables[p.session];
    if (value === undefined) throw new EngineError(ErrorCode.NotFound, `missing session variable: "${p.session}"`, { path: '$' });
    vars[p.variable] = coerceSession(value, p.coerce, p.session);
  }
  return vars;
}

/** The variables a remote request declares, from the request and the session. */
export function remoteVariables(step: RemoteStepBody, variables: Readonly<Record<string, unknown>>, session: Session): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const v of step.variables) if (variables[v] !== undefined) vars[v] = variables[v];
  Object.assign(vars, sessionPresetValues(step.sessionPresets, session));
  return vars;
}

/** Binds a remote request: the variables it declares, from the request and the session. */
export function bindRemote(step: RemoteStepBody, variables: Readonly<Record<string, unknown>>, session: Session): BoundRemote {
  return { body: JSON.stringify({ query: step.query, variables: remoteVariables(step, variables, session) }), session };
}

/** The headers of a request to `remote`: forwarded client headers, then configured ones, then the session. */
export function headersFor(remote: RemoteSchemaInfo, session: Session, client: ClientHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  // Never the admin secret or the client's session headers, in either spelling (Note [Forwarded client headers]).
  if (remote.endpoint.forwardClientHeaders) Object.assign(out, forwardedClientHeaders(client));
  for (const [k, v] of remote.endpoint.headers) out[k.toLowerCase()] = v;
  // v2 compat: the session goes along as X-Engine-* headers, over anything configured or forwarded.
  for (const [k, v] of Object.entries(session.variables)) out[k] = v;
  return out;
}

/** Renames the `__typename`s `tree` points at in `value` (in place) to customized names. */
export function renameTypenames(value: unknown, tree: ir.TypenameTree, names: RemoteNames): void {
  if (Array.isArray(value)) {
    for (const v of value) renameTypenames(v, tree, names);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const o = value as Record<string, unknown>;
  for (const k of tree.typenames) if (typeof o[k] === 'string') o[k] = names.typeOut(o[k]);
  for (const [k, child] of tree.children) renameTypenames(o[k], child, names);
}

function errorOf(step: RemoteStepBody, answer: RemoteAnswer): EngineError {
  const first = answer.errors?.[0] ?? {};
  const message = typeof first['message'] === 'string' ? first['message'] : 'the remote schema answered an error';
  const remotePath = Array.isArray(first['path']) ? (first['path'] as unknown[]) : [];
  let path = '$';
  remotePath.forEach((p, i) => {
    if (i === 0 && typeof p === 'string') path += `.${step.aliases.get(p) ?? p}`;
    else path += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  });
  return new EngineError(ErrorCode.RemoteSchemaError, message, { path, internal: { remote_schema: step.remote.name, errors: answer.errors } });
}

/** Runs a bound remote step: the JSON object text of its members. */
export async function runRemote(step: RemoteStepBody, bound: BoundRemote, clientHeaders?: ClientHeaders): Promise<string> {
  const remote = step.remote;
  let answer: RemoteAnswer;
  try {
    answer = await postGraphql({
      url: remote.endpoint.url,
      headers: headersFor(remote, bound.session, clientHeaders),
      body: bound.body,
      timeoutMs: remote.endpoint.timeoutMs,
    });
  } catch (e) {
    const message = e instanceof RemoteCallError ? e.message : 'the remote schema could not be reached';
    throw new EngineError(ErrorCode.RemoteSchemaError, message, { path: '$', internal: { remote_schema: remote.name } });
  }
  return remoteAnswerText(step, answer);
}

/** The JSON object text of a step's members in `answer` (a query's answer or one subscription event); its errors as an EngineError. */
export function remoteAnswerText(step: RemoteStepBody, answer: RemoteAnswer): string {
  const remote = step.remote;
  if (answer.errors !== undefined && answer.errors.length > 0) throw errorOf(step, answer);
  const data = answer.data;
  if (data === null || data === undefined || typeof data !== 'object') {
    throw new EngineError(ErrorCode.RemoteSchemaError, 'the remote schema answered no data', { path: '$', internal: { remote_schema: remote.name } });
  }
  const valueOf = (slot: RemoteSlot): unknown => {
    const v = data[slot.key] ?? null;
    if (slot.typenames !== null) renameTypenames(v, slot.typenames, remote.names);
    return v;
  };
  const parts = step.members.map((m) => {
    if ('slot' in m) return `${JSON.stringify(m.alias)}:${JSON.stringify(valueOf(m.slot))}`;
    const inner = m.members.map((x) => `${JSON.stringify(x.alias)}:${'json' in x ? x.json : JSON.stringify(valueOf(x.slot))}`);
    return `${JSON.stringify(m.alias)}:{${inner.join(',')}}`;
  });
  return `{${parts.join(',')}}`;
}
