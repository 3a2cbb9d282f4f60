/**
 * The one LISTEN connection of the metadata database, shared by every
 * channel the engine listens to there (Note [Metadata database] in
 * database.ts).
 */
import pg from 'pg';
import type { ChannelHandlers, ChannelSubscription } from '../../metadata-database.ts';
import { metadataClientConfig } from '../ssl.ts';

/** First wait before listening again after a loss; doubles up to {@link RETRY_MAX_MS}. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;

/**
 * A LISTEN connection multiplexing channels. It connects on the first
 * subscription, LISTENs on each channel once (a channel left by its last
 * subscriber stays LISTENed: a notice nobody wants is dropped here, and the
 * connection's last query stays a LISTEN), and after a loss tells every
 * subscriber `missed()` and connects again by itself, telling them
 * `missed()` again once it listens.
 */
export class Notifications {
  readonly #url: string;
  readonly #onLost: (error: unknown) => void;
  readonly #subscribers = new Map<string, Set<ChannelHandlers>>();
  #client: pg.Client | null = null;
  /** Channels LISTENed (or being LISTENed) on `#client`. */
  #listened = new Set<string>();
  #connecting: Promise<void> | null = null;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #retryMs = RETRY_FIRST_MS;
  /** An attempt failed or the connection was lost since the last time it listened: tell subscribers once it listens. */
  #gap = false;
  #closed = false;
  #listening = false;

  constructor(url: string, onLost: (error: unknown) => void) {
    this.#url = url;
    this.#onLost = onLost;
  }

  /** Whether the connection listens now (notifications are being delivered). */
  get listening(): boolean {
    return this.#listening;
  }

  /**
   * Subscribes to `channel`. Resolves once the connection made its first
   * attempt to LISTEN on it (it retries by itself after a failure): nothing
   * committed from then on is missed without `missed()` being called.
   */
  async listen(channel: string, handlers: ChannelHandlers): Promise<ChannelSubscription> {
    let set = this.#subscribers.get(channel);
    if (set === undefined) {
      set = new Set();
      this.#subscribers.set(channel, set);
    }
    set.add(handlers);
    const subscription: ChannelSubscription = { close: () => void this.#subscribers.get(channel)?.delete(handlers) };
    if (this.#closed) return subscription;
    if (this.#client === null) await this.#ensure();
    else if (this.#connecting !== null) await this.#connecting;
    await this.#listenAll();
    return subscription;
  }

  /** Connects unless connected or connecting. */
  async #ensure(): Promise<void> {
    if (this.#closed || this.#client !== null) return;
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = null;
    });
    await this.#connecting;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(metadataClientConfig(this.#url));
    client.on('notification', (n) => this.#deliver(n.channel, n.payload ?? ''));
    const onLoss = (e: unknown): void => this.#lost(client, e);
    client.on('error', onLoss);
    client.on('end', () => onLoss(new Error('the LISTEN connection of the metadata database ended')));
    this.#client = client;
    this.#listened = new Set();
    try {
      await client.connect();
    } catch (e) {
      this.#lost(client, e);
      return;
    }
    await this.#listenAll();
  }

  /** LISTENs on every subscribed channel not yet LISTENed on the current connection. */
  async #listenAll(): Promise<void> {
    const client = this.#client;
    if (client === null || this.#closed) return;
    const fresh = [...this.#subscribers.keys()].filter((c) => !this.#listened.has(c));
    for (const c of fresh) this.#listened.add(c);
    try {
      for (const c of fresh) await client.query(`LISTEN ${client.escapeIdentifier(c)}`);
    } catch (e) {
      this.#lost(client, e);
      return;
    }
    if (this.#client !== client || this.#listening) return;
    this.#listening = true;
    this.#retryMs = RETRY_FIRST_MS;
    if (this.#gap) {
      // Notifications committed while nobody listened were not delivered.
      this.#gap = false;
      this.#tellMissed();
    }
  }

  #deliver(channel: string, payload: string): void {
    for (const h of [...(this.#subscribers.get(channel) ?? [])]) {
      try {
        h.notify(payload);
      } catch {
        // A subscriber's failure is its own; the others still hear.
      }
    }
  }

  #tellMissed(): void {
    for (const set of [...this.#subscribers.values()]) {
      for (const h of [...set]) {
        try {
          h.missed();
        } catch {
          // As in #deliver.
        }
      }
    }
  }

  #lost(client: pg.Client, e: unknown): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#listened = new Set();
    const wasListening = this.#listening;
    this.#listening = false;
    client.removeAllListeners('error');
    client.on('error', () => {});
    void client.end().catch(() => {});
    if (this.#closed) return;
    this.#gap = true;
    if (wasListening) {
      this.#onLost(e);
      this.#tellMissed();
    }
    if (this.#retry !== null) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#ensure();
    }, this.#retryMs);
    this.#retry.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = null;
    this.#subscribers.clear();
    const c = this.#client;
    this.#client = null;
    if (c !== null) await c.end().catch(() => {});
  }
}
