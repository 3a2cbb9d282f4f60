/**
 * v2's API limits (`set_api_limits`) as they apply to one request.
 *
 * Note [API limits]
 * As in v2, no limit applies to the admin role; a role without a `per_role`
 * entry gets the `global` value; `disabled: true` turns all of them off.
 * - `depth_limit`, `node_limit`: checked on the parsed operation before it is
 *   validated or planned, and only on a plan-cache miss (Note [Operation
 *   cost]); depth limits skip introspection queries (v2 does).
 * - `batch_limit`: the number of operations of a batched request.
 * - `time_limit` (seconds): that role's statement timeout, set for its
 *   statements with `set_config('statement_timeout', …, true)` inside a
 *   transaction (only requests of a role with a time limit pay for it).
 * - `rate_limit`: operations per minute per role (v2: "number of GraphQL
 *   operations"; a batch of n counts n, and one that would pass the limit is
 *   refused whole, counting none), and per `IP` or per the values
 *   of the named session variables when `unique_params` says so, over a
 *   sliding window (the previous minute's count weighted by how much of it
 *   the window still covers, plus this minute's). The counts live in this
 *   process's memory: with N engine processes behind a balancer a client may
 *   make up to N times the limit. v2 Cloud keeps them in Redis; a shared store
 *   is future work.
 */
import type { ApiLimitOption, ApiLimits, RateLimitConfig } from '../model/document.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

/** The limits that apply to one role. */
export interface RoleLimits {
  readonly depth: number | null;
  readonly nodes: number | null;
  readonly batch: number | null;
  readonly timeoutMs: number | null;
  readonly rate: { readonly max: number; readonly by: 'ip' | readonly string[] | null } | null;
}

function pick<T>(o: ApiLimitOption<T> | undefined, role: string): T | null {
  if (o === undefined) return null;
  const own = o.per_role?.[role];
  return own !== undefined ? own : o.global;
}

function rateOf(c: RateLimitConfig | null): RoleLimits['rate'] {
  if (c === null) return null;
  const u = c.unique_params;
  const by = u === undefined || u === null ? null : typeof u === 'string' ? 'ip' : u.map((v) => v.toLowerCase());
  return { max: c.max_reqs_per_min, by };
}

/** The API limits of one catalog, resolved per role on first use. */
export class ApiLimitsPolicy {
  readonly #limits: ApiLimits;
  readonly #byRole = new Map<string, RoleLimits | null>();

  constructor(limits: ApiLimits) {
    this.#limits = limits;
  }

  /** The limits of `role`, or null when none apply. Admin is exempt. */
  forRole(role: string, isAdmin: boolean): RoleLimits | null {
    if (isAdmin || this.#limits.disabled === true) return null;
    let r = this.#byRole.get(role);
    if (r === undefined) {
      const l = this.#limits;
      const time = pick(l.time_limit, role);
      const resolved: RoleLimits = {
        depth: pick(l.depth_limit, role),
        nodes: pick(l.node_limit, role),
        batch: pick(l.batch_limit, role),
        timeoutMs: time === null ? null : Math.max(1, Math.round(time * 1000)),
        rate: rateOf(pick(l.rate_limit, role)),
      };
      const none = resolved.depth === null && resolved.nodes === null && resolved.batch === null && resolved.timeoutMs === null && resolved.rate === null;
      r = none ? null : resolved;
      this.#byRole.set(role, r);
    }
    return r;
  }
}

/** v2 compat: the wording of a refused operation ("rate limit of 10 exceeded"). */
export function limitExceeded(what: 'depth' | 'node' | 'batch' | 'field', limit: number): EngineError {
  return new EngineError(ErrorCode.ValidationFailed, `${what} limit of ${limit} exceeded`, { path: '$', status: 200 });
}

const MINUTE_MS = 60_000;
/** Above this many keys, windows idle for two minutes are swept. */
const SWEEP_AT = 10_000;

interface Window {
  start: number;
  count: number;
  previous: number;
}

/** Per-process request counts for rate limits (see Note [API limits]). */
export class RateLimiter {
  readonly #windows = new Map<string, Window>();

  /** Counts `n` operations under `key`; false (and none counted) when they would pass `max` per minute. */
  take(key: string, max: number, now: number, n = 1): boolean {
    let w = this.#windows.get(key);
    if (w === undefined) {
      if (this.#windows.size >= SWEEP_AT) this.#sweep(now);
      w = { start: now, count: 0, previous: 0 };
      this.#windows.set(key, w);
    }
    const elapsed = now - w.start;
    if (elapsed >= MINUTE_MS) {
      w.previous = elapsed < 2 * MINUTE_MS ? w.count : 0;
      w.count = 0;
      w.start = now - (elapsed % MINUTE_MS);
    }
    const weight = 1 - (now - w.start) / MINUTE_MS;
    if (w.previous * weight + w.count + n > max) return false;
    w.count += n;
    return true;
  }

  #sweep(now: number): void {
    for (const [k, w] of this.#windows) if (now - w.start >= 2 * MINUTE_MS) this.#windows.delete(k);
  }
}

/** v2 compat: the answer past a rate limit. */
export function rateLimitExceeded(max: number): EngineError {
  return new EngineError(ErrorCode.RateLimitExceeded, `rate limit of ${max} exceeded`, { path: '$', status: 200 });
}
