/**
 * One GraphQL WebSocket: its state machine from the upgrade to the close.
 *
 * Note [WebSocket bounds]
 * What one socket may cost is bounded, whatever its client sends:
 * - frames over MAX_PAYLOAD bytes close it (1009, by ws);
 * - a frame that is not a message of its protocol closes it with 4400
 *   (graphql-transport-ws) or gets a connection_error (the legacy protocol
 *   keeps the socket, as subscriptions-transport-ws does);
 * - at most MAX_OPERATIONS operations run at once; more are refused one by
 *   one with an `error` message (a client subscribing 10,000 times on one
 *   socket gets 1,000 subscriptions and 9,000 refusals, and the engine keeps
 *   one record per running operation only);
 * - a client that does not read: once MAX_BUFFERED bytes wait in the send
 *   buffer the socket is destroyed (a close frame could not reach it either),
 *   and its operations stop; WebSocket pings every keep-alive period find
 *   peers that vanished (no pong by the next ping: destroyed);
 * - connection_init must come within the init timeout (4408), once (4429),
 *   and before any operation (4401); a session with an expiry (a JWT's
 *   `exp`) closes the socket when it passes (4403).
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { OperationHandle } from '../../api/contract.ts';
import type { Session } from '../../auth/session.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError, errorDetails, isEngineError } from '../../errors/engine-error.ts';
import { graphqlErrorBody } from '../../errors/wire-body.ts';
import { RequestContext, type ClientHeaders } from '../../request-context.ts';
import type { AppDeps } from '../deps.ts';
import { BadMessage, CloseCode, encoderOf, initHeaders, parseClientMessage, type ClientMessage, type Encoder, type Protocol } from './protocol.ts';

/** Largest frame accepted, in bytes. */
export const MAX_PAYLOAD = 4 * 1024 * 1024;
/** Operations one socket may run at once (Note [WebSocket bounds]). */
export const MAX_OPERATIONS = 1000;
/** Bytes waiting to be sent before a socket whose client does not read is destroyed. */
export const MAX_BUFFERED = 8 * 1024 * 1024;

/** Timing settings of sockets. */
export interface SocketTimings {
  readonly keepAliveMs: number;
  readonly initTimeoutMs: number;
}

/** Headers of the WebSocket handshake itself, left out of what authentication sees. */
const HANDSHAKE_HEADERS = ['upgrade', 'connection', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol'];

type State = 'waiting' | 'authenticating' | 'ready' | 'closed';

/** One socket's protocol state. */
export class GraphqlSocket {
  readonly #ws: WebSocket;
  readonly #req: IncomingMessage;
  readonly #deps: AppDeps;
  readonly #enc: Encoder;
  readonly #protocol: Protocol;
  #state: State = 'waiting';
  #session: Session | null = null;
  /** The client's headers (the upgrade's, then connection_init's): remote schemas with `forward_client_headers` and actions send them on. */
  #headers: ClientHeaders | undefined = undefined;
  readonly #ops = new Map<string, OperationHandle | null>();
  readonly #timers: NodeJS.Timeout[] = [];
  #alive = true;
  readonly #onClose: () => void;
  /** Messages that came while connection_init was being authenticated (clients send them without waiting for the ack). */
  #early: ClientMessage[] = [];

  constructor(ws: WebSocket, req: IncomingMessage, protocol: Protocol, deps: AppDeps, timings: SocketTimings, onClose: () => void) {
    this.#ws = ws;
    this.#req = req;
    this.#deps = deps;
    this.#protocol = protocol;
    this.#enc = encoderOf(protocol);
    this.#onClose = onClose;
    ws.on('message', (data, isBinary) => this.#message(isBinary ? null : data.toString()));
    ws.on('close', () => this.#closed());
    ws.on('error', () => this.#closed());
    ws.on('pong', () => {
      this.#alive = true;
    });
    if (timings.initTimeoutMs > 0) {
      this.#timers.push(
        setTimeout(() => {
          if (this.#state === 'waiting' || this.#state === 'authenticating')
            this.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
        }, timings.initTimeoutMs),
      );
    }
    if (timings.keepAliveMs > 0) {
      const t = setInterval(() => {
        if (!this.#alive) {
          this.#destroy();
          return;
        }
        this.#alive = false;
        ws.ping();
        // The legacy protocol's `ka` tells clients (and proxies) the socket lives.
        if (this.#state === 'ready' && this.#protocol === 'graphql-ws') this.#send(this.#enc.keepAlive());
      }, timings.keepAliveMs);
      this.#timers.push(t);
    }
  }

  /** Closes with `code` (the engine shuts down: 1001). */
  close(code: number, reason: string): void {
    if (this.#state === 'closed') return;
    this.#ws.close(code, reason);
    this.#closed();
  }

  #destroy(): void {
    this.#ws.terminate();
    this.#closed();
  }

  #closed(): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    for (const t of this.#timers) clearTimeout(t);
    for (const h of this.#ops.values()) h?.stop();
    this.#ops.clear();
    this.#onClose();
  }

  #send(text: string): void {
    if (this.#state === 'closed') return;
    if (this.#ws.bufferedAmount > MAX_BUFFERED) {
      // Note [WebSocket bounds]: the client does not read.
      this.#destroy();
      return;
    }
    this.#ws.send(text);
  }

  #message(text: string | null): void {
    if (this.#state === 'closed') return;
    let m: ClientMessage;
    try {
      if (text === null) throw new BadMessage('Invalid message received: binary frame');
      m = parseClientMessage(this.#protocol, text);
    } catch (e) {
      const message = e instanceof BadMessage ? e.message : 'Invalid message received';
      const legacy = this.#enc.connectionError(message);
      if (legacy !== null) this.#send(legacy);
      else this.close(CloseCode.BadRequest, message);
      return;
    }
    if (this.#state === 'authenticating' && (m.kind === 'start' || m.kind === 'stop')) {
      if (this.#early.length >= MAX_OPERATIONS) this.close(CloseCode.BadRequest, 'Too many messages before connection_ack');
      else this.#early.push(m);
      return;
    }
    this.#handle(m);
  }

  #handle(m: ClientMessage): void {
    switch (m.kind) {
      case 'init':
        void this.#init(m.payload);
        return;
      case 'ping':
        this.#send(this.#enc.pong(m.payload));
        return;
      case 'pong':
        return;
      case 'terminate':
        this.close(CloseCode.Normal, 'connection_terminate');
        return;
      case 'stop': {
        const h = this.#ops.get(m.id);
        this.#ops.delete(m.id);
        h?.stop();
        return;
      }
      case 'start':
        this.#start(m.id, m.payload);
        return;
    }
  }

  async #init(payload: unknown): Promise<void> {
    if (this.#state !== 'waiting') {
      this.close(CloseCode.TooManyInitialisationRequests, 'Too many initialisation requests');
      return;
    }
    this.#state = 'authenticating';
    // The upgrade's headers, then the payload's (v2: `headers`, or at the top level), through the one auth path.
    const headers: Record<string, string | string[] | undefined> = { ...this.#req.headers, ...initHeaders(payload) };
    // The handshake's own headers are not the client's credentials (and fetch refuses to forward `upgrade`).
    for (const h of HANDSHAKE_HEADERS) delete headers[h];
    let session: Session;
    try {
      session = (await this.#deps.auth.resolve(headers, undefined)).session;
    } catch (e) {
      if ((this.#state as State) === 'closed') return;
      const err = isEngineError(e) ? e : new EngineError(ErrorCode.Unexpected, 'unexpected error');
      const legacy = this.#enc.connectionError(err.message);
      if (legacy !== null) this.#send(legacy);
      this.close(CloseCode.Forbidden, `Forbidden: ${err.message}`.slice(0, 120));
      return;
    }
    if ((this.#state as State) === 'closed') return;
    this.#session = session;
    this.#headers = headers;
    this.#state = 'ready';
    this.#send(this.#enc.ack());
    if (this.#protocol === 'graphql-ws') this.#send(this.#enc.keepAlive());
    const early = this.#early;
    this.#early = [];
    for (const m of early) this.#handle(m);
    const expiresAt = session.expiresAt;
    if (expiresAt !== undefined) {
      // setTimeout's bound is 2^31-1 ms; a later expiry is checked again then.
      const arm = (): void => {
        const left = expiresAt - Date.now();
        if (left <= 0) this.close(CloseCode.Forbidden, 'Forbidden: the session expired');
        else this.#timers.push(setTimeout(arm, Math.min(left, 2 ** 31 - 1)));
      };
      arm();
    }
  }

  #start(id: string, payload: Readonly<Record<string, unknown>>): void {
    const session = this.#session;
    if (this.#state !== 'ready' || session === null) {
      if (this.#protocol === 'graphql-transport-ws') this.close(CloseCode.Unauthorized, 'Unauthorized');
      else this.#send(this.#enc.error(id, [{ message: 'connection_init has not been acknowledged', extensions: { path: '$', code: ErrorCode.AccessDenied } }]));
      return;
    }
    if (this.#ops.has(id)) {
      if (this.#protocol === 'graphql-transport-ws') this.close(CloseCode.SubscriberAlreadyExists, `Subscriber for ${id.slice(0, 64)} already exists`);
      else
        this.#send(
          this.#enc.error(id, [
            { message: `an operation with id "${id.slice(0, 64)}" is already running`, extensions: { path: '$', code: ErrorCode.BadRequest } },
          ]),
        );
      return;
    }
    if (this.#ops.size >= MAX_OPERATIONS) {
      const err = new EngineError(ErrorCode.BadRequest, `too many operations on one socket (at most ${MAX_OPERATIONS})`, { path: '$' });
      this.#send(this.#enc.error(id, graphqlErrorBody(err, false)['errors'] as unknown[]));
      return;
    }
    // Reserved before start: the sink may answer at once.
    this.#ops.set(id, null);
    const ended = (): boolean => this.#state === 'closed' || !this.#ops.has(id);
    const sink = {
      next: (text: string) => {
        if (!ended()) this.#send(this.#enc.next(id, text));
      },
      error: (errors: readonly unknown[]) => {
        if (ended()) return;
        this.#ops.delete(id);
        this.#send(this.#enc.error(id, errors));
      },
      complete: () => {
        if (ended()) return;
        this.#ops.delete(id);
        this.#send(this.#enc.complete(id));
      },
    };
    const socketApi = this.#deps.socket;
    if (socketApi === undefined) {
      sink.error([{ message: 'operations over WebSocket are not served', extensions: { path: '$', code: ErrorCode.NotSupported } }]);
      return;
    }
    const ctx = new RequestContext(this.#req.socket.remoteAddress);
    ctx.headers = this.#headers;
    socketApi.start(session, payload, sink, ctx).then(
      (handle) => {
        if (ended()) handle.stop();
        else this.#ops.set(id, handle);
      },
      (e: unknown) => {
        this.#deps.logger.error('websocket operation failed', { error: errorDetails(e) });
        sink.error([{ message: 'unexpected error', extensions: { path: '$', code: ErrorCode.Unexpected } }]);
      },
    );
  }
}
