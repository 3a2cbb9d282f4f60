/**
 * The two GraphQL-over-WebSocket sub-protocols (compat.md): messages in,
 * messages out, close codes. `graphql-transport-ws` is the graphql-ws
 * library's protocol; `graphql-ws` is Apollo's older
 * subscriptions-transport-ws protocol (a socket offering no sub-protocol
 * speaks it too, as v2 accepts).
 */

/** The sub-protocol of a socket. */
export type Protocol = 'graphql-transport-ws' | 'graphql-ws';

/** The sub-protocol to answer an upgrade offering `offered` (the Sec-WebSocket-Protocol values); null: none offered is ours. */
export function chooseProtocol(offered: ReadonlySet<string>): Protocol | null {
  if (offered.has('graphql-transport-ws')) return 'graphql-transport-ws';
  if (offered.has('graphql-ws') || offered.size === 0) return 'graphql-ws';
  return null;
}

/** Close codes of graphql-transport-ws (also used for the legacy protocol's equivalent cases). */
export const CloseCode = {
  Normal: 1000,
  GoingAway: 1001,
  InternalError: 4500,
  BadRequest: 4400,
  Unauthorized: 4401,
  Forbidden: 4403,
  ConnectionInitialisationTimeout: 4408,
  SubscriberAlreadyExists: 4409,
  TooManyInitialisationRequests: 4429,
} as const;

/** A client message, whichever protocol it came in. */
export type ClientMessage =
  | { readonly kind: 'init'; readonly payload: unknown }
  | { readonly kind: 'ping'; readonly payload: unknown }
  | { readonly kind: 'pong' }
  | { readonly kind: 'start'; readonly id: string; readonly payload: Readonly<Record<string, unknown>> }
  | { readonly kind: 'stop'; readonly id: string }
  | { readonly kind: 'terminate' };

/** Why a frame is not a message of the protocol. */
export class BadMessage extends Error {}

/** Parses one text frame of `protocol`; throws BadMessage. */
export function parseClientMessage(protocol: Protocol, text: string): ClientMessage {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw new BadMessage('Invalid message received: not JSON');
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) throw new BadMessage('Invalid message received: not an object');
  const o = m as Record<string, unknown>;
  const type = o['type'];
  if (typeof type !== 'string') throw new BadMessage('Invalid message received: no type');
  const id = (): string => {
    const v = o['id'];
    if (typeof v !== 'string' || v.length === 0) throw new BadMessage(`Invalid message received: "${type}" needs an id`);
    return v;
  };
  const startPayload = (): Record<string, unknown> => {
    const p = o['payload'];
    if (typeof p !== 'object' || p === null || Array.isArray(p) || typeof (p as Record<string, unknown>)['query'] !== 'string') {
      throw new BadMessage(`Invalid message received: "${type}" needs a payload with a query`);
    }
    return p as Record<string, unknown>;
  };
  switch (type) {
    case 'connection_init':
      return { kind: 'init', payload: o['payload'] };
    case 'ping':
      // The legacy protocol has no ping; a client sending one gets a pong all the same.
      return { kind: 'ping', payload: o['payload'] };
    case 'pong':
      return { kind: 'pong' };
    default:
      break;
  }
  if (protocol === 'graphql-transport-ws') {
    if (type === 'subscribe') return { kind: 'start', id: id(), payload: startPayload() };
    if (type === 'complete') return { kind: 'stop', id: id() };
  } else {
    if (type === 'start') return { kind: 'start', id: id(), payload: startPayload() };
    if (type === 'stop') return { kind: 'stop', id: id() };
    if (type === 'connection_terminate') return { kind: 'terminate' };
  }
  throw new BadMessage(`Invalid message received: unknown type "${type.slice(0, 64)}"`);
}

/** The texts the server sends, per protocol. */
export interface Encoder {
  ack(): string;
  /** A keep-alive (`ka` in the legacy protocol, `ping` in the other). */
  keepAlive(): string;
  pong(payload: unknown): string;
  /** `resultText` is JSON text of a GraphQL result. */
  next(id: string, resultText: string): string;
  error(id: string, errors: readonly unknown[]): string;
  complete(id: string): string;
  /** The legacy protocol's connection_error (the other protocol closes the socket instead); null when none. */
  connectionError(message: string): string | null;
}

const TRANSPORT: Encoder = {
  ack: () => '{"type":"connection_ack"}',
  keepAlive: () => '{"type":"ping","payload":{"message":"keepalive"}}',
  pong: (payload) => (payload === undefined ? '{"type":"pong"}' : JSON.stringify({ type: 'pong', payload })),
  next: (id, resultText) => `{"type":"next","id":${JSON.stringify(id)},"payload":${resultText}}`,
  error: (id, errors) => JSON.stringify({ type: 'error', id, payload: errors }),
  complete: (id) => `{"type":"complete","id":${JSON.stringify(id)}}`,
  connectionError: () => null,
};

const LEGACY: Encoder = {
  ack: () => '{"type":"connection_ack"}',
  keepAlive: () => '{"type":"ka"}',
  pong: (payload) => (payload === undefined ? '{"type":"pong"}' : JSON.stringify({ type: 'pong', payload })),
  next: (id, resultText) => `{"type":"data","id":${JSON.stringify(id)},"payload":${resultText}}`,
  error: (id, errors) => JSON.stringify({ type: 'error', id, payload: { errors } }),
  complete: (id) => `{"type":"complete","id":${JSON.stringify(id)}}`,
  connectionError: (message) => JSON.stringify({ type: 'connection_error', payload: { message } }),
};

/** The encoder of `protocol`. */
export function encoderOf(protocol: Protocol): Encoder {
  return protocol === 'graphql-transport-ws' ? TRANSPORT : LEGACY;
}

/**
 * The headers of a connection_init payload (v2 compat: a `headers` object,
 * or the headers at the top level), lower-cased, string values only.
 */
export function initHeaders(payload: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return out;
  const p = payload as Record<string, unknown>;
  const nested = p['headers'];
  const from = typeof nested === 'object' && nested !== null && !Array.isArray(nested) ? (nested as Record<string, unknown>) : p;
  for (const [k, v] of Object.entries(from)) if (typeof v === 'string') out[k.toLowerCase()] = v;
  return out;
}
