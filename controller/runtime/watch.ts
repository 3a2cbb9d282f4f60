/**
 * One watch request: `GET <collection>?watch=true` streamed as newline-delimited JSON events
 * (see Note [Own Kubernetes client] in kube-connection.ts). The server ends a watch after
 * `timeoutSeconds`; an inactivity timeout (no bytes, not even a bookmark, for INACTIVITY_MS)
 * catches half-open connections (operator-notes.md §3.6). The informer decides what happens next.
 */
import { fetch } from 'undici';
import { retryAfterMs } from './kube-api.ts';
import type { KubeConnection } from './kube-connection.ts';

/**
 * How the watch ended: null for a normal end, else an error (statusCode set for HTTP errors,
 * retryAfterMs when the server said when to come back: Note [Retry-After] in kube-api.ts).
 */
export type WatchEnd = null | (Error & { statusCode?: number; retryAfterMs?: number });

/** Without a byte for this long the watch is considered dead (bookmarks arrive about every minute). */
const INACTIVITY_MS = 90_000;

/** Starts a watch; `onDone` is called exactly once. Abort the answer to stop it. */
export function watch(
  conn: KubeConnection,
  collectionPath: string,
  query: Readonly<Record<string, string | boolean>>,
  onEvent: (type: string, object: unknown) => void,
  onDone: (end: WatchEnd) => void,
): AbortController {
  const abort = new AbortController();
  const q = new URLSearchParams({ watch: 'true' });
  for (const [k, v] of Object.entries(query)) q.set(k, String(v));
  // Server-side end with jitter, so many watches do not all reconnect at once.
  if (!q.has('timeoutSeconds')) q.set('timeoutSeconds', String(240 + Math.floor(Math.random() * 120)));
  let done = false;
  const finish = (end: WatchEnd): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    onDone(end);
  };
  let timer = setTimeout(() => expire(), INACTIVITY_MS);
  const expire = (): void => {
    const e = new Error(`watch ${collectionPath}: no data for ${INACTIVITY_MS} ms`);
    e.name = 'TimeoutError';
    finish(e);
    abort.abort();
  };
  const touch = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => expire(), INACTIVITY_MS);
  };
  void (async () => {
    try {
      const auth = await conn.auth();
      const res = await fetch(`${conn.server}${collectionPath}?${q.toString()}`, {
        headers: { ...auth.headers, accept: 'application/json' },
        dispatcher: auth.dispatcher,
        signal: abort.signal,
      });
      if (!res.ok) {
        const text = await res.text();
        const e: Error & { statusCode?: number; retryAfterMs?: number } = new Error(`watch ${collectionPath}: ${res.status} ${text.slice(0, 500)}`);
        e.statusCode = res.status;
        e.retryAfterMs = retryAfterMs(res.status, res.headers.get('retry-after'));
        // Fresh credentials for the next try (a rotated token file, an expired plugin token).
        if (res.status === 401) conn.invalidate();
        finish(e);
        return;
      }
      if (res.body === null) {
        finish(null);
        return;
      }
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of res.body) {
        touch();
        buffered += decoder.decode(chunk as Uint8Array, { stream: true });
        let nl = buffered.indexOf('\n');
        while (nl >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line !== '') {
            const ev = JSON.parse(line) as { type: string; object: unknown };
            onEvent(ev.type, ev.object);
          }
          nl = buffered.indexOf('\n');
        }
      }
      finish(null);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      finish(err);
    }
  })();
  return abort;
}
