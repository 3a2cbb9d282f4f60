/**
 * A raw WebSocket client for protocol tests: sends frames as given, records
 * every message and the close, and waits for them with a bound.
 */
import WebSocket from 'ws';

/** A recorded socket. */
export interface RawSocket {
  readonly ws: WebSocket;
  readonly messages: Record<string, unknown>[];
  /** The close code and reason, once closed. */
  closed: { code: number; reason: string } | null;
  send(frame: unknown): void;
  /** Waits until a message satisfies `pred` (from the start of the recording), or throws after `ms`. */
  waitFor(pred: (m: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  waitClosed(ms?: number): Promise<{ code: number; reason: string }>;
  close(): void;
}

/** The ws:// URL of an engine's http:// URL. */
export function wsUrl(httpUrl: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}/v1/graphql`;
}

async function until<T>(get: () => T | undefined, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Opens a socket with `protocol` (none: no sub-protocol offered) and `headers` on the upgrade. */
export async function openRawSocket(httpUrl: string, protocol: string | null, headers: Record<string, string> = {}): Promise<RawSocket> {
  const ws = protocol === null ? new WebSocket(wsUrl(httpUrl), { headers }) : new WebSocket(wsUrl(httpUrl), protocol, { headers });
  const s: RawSocket = {
    ws,
    messages: [],
    closed: null,
    send: (frame) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    waitFor: async (pred, ms = 10_000) => await until(() => s.messages.find(pred), ms, 'a message'),
    waitClosed: async (ms = 10_000) => await until(() => s.closed ?? undefined, ms, 'the close'),
    close: () => ws.close(),
  };
  ws.on('message', (d) => s.messages.push(JSON.parse(d.toString()) as Record<string, unknown>));
  ws.on('close', (code, reason) => {
    s.closed = { code, reason: reason.toString() };
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return s;
}
