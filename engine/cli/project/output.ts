/**
 * How the project commands report: human text (progress and errors on stderr, results on stdout)
 * or, with `--output json`, one JSON value on stdout per command for scripts; and the exit codes.
 *
 * Note [Project command exit codes]
 *   0  done (for `metadata diff`, also when there are differences)
 *   1  the engine refused or a step failed (a failed migration, an inconsistent metadata apply)
 *   2  bad usage or a bad project (unknown flag, unreadable config.yaml or metadata file)
 *   3  the engine could not be reached, or refused the admin secret
 */
import { EngineUnreachableError, MetadataApiError } from '../../metadata-client/client.ts';

/** Bad usage or a bad project directory: exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A step failed (a migration, an apply): exit 1, with details for `--output json`. */
export class StepError extends Error {
  override readonly name = 'StepError';
  readonly details: Record<string, unknown>;
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.details = details;
  }
}

/** Where a command writes. */
export interface Io {
  readonly json: boolean;
  readonly color: boolean;
  /** A result line (stdout; suppressed in JSON mode). */
  out(line: string): void;
  /** Progress (stderr; suppressed in JSON mode). */
  progress(line: string): void;
  /** The one JSON result (stdout, JSON mode only). */
  result(value: unknown): void;
}

/** An Io over the process's streams. */
export function processIo(json: boolean, color: boolean): Io {
  return {
    json,
    color,
    out: (line) => {
      if (!json) process.stdout.write(line + '\n');
    },
    progress: (line) => {
      if (!json) process.stderr.write(line + '\n');
    },
    result: (value) => {
      if (json) process.stdout.write(JSON.stringify(value, null, 2) + '\n');
    },
  };
}

/** The exit code and message of a failure, saying what to do where we can. */
export function describeFailure(e: unknown, endpoint: string | undefined): { code: number; message: string; details?: Record<string, unknown> } {
  if (e instanceof UsageError) return { code: 2, message: e.message };
  if (e instanceof StepError) return { code: 1, message: e.message, details: e.details };
  if (e instanceof EngineUnreachableError) {
    return {
      code: 3,
      message: `cannot reach the engine at ${endpoint ?? 'its endpoint'} (${e.message}): start it, or point at it with --endpoint, ENGINE_GRAPHQL_ENDPOINT or config.yaml's endpoint`,
    };
  }
  if (e instanceof MetadataApiError) {
    if (e.isAccessDenied) {
      return {
        code: 3,
        message: `the engine refused the admin secret (${e.message}): give it with --admin-secret, ENGINE_GRAPHQL_ADMIN_SECRET or config.yaml's admin_secret`,
      };
    }
    return { code: 1, message: `the engine answered ${e.code} at ${e.path}: ${e.message}`, details: { code: e.code, path: e.path, body: e.body } };
  }
  return { code: 1, message: e instanceof Error ? e.message : String(e) };
}

/**
 * The database's own words in an engine error: v2's `postgres-error` body carries them in
 * `internal.error` (`message`, `description`, `hint`); the top-level `error` is only "query
 * execution failed".
 */
export function databaseMessage(e: unknown): string {
  const base = e instanceof Error ? e.message : String(e);
  const body = (e as { body?: unknown }).body;
  const internal = (body as { internal?: { error?: Record<string, unknown> } } | undefined)?.internal;
  const pgError = internal?.error;
  if (pgError === undefined || typeof pgError['message'] !== 'string') return base;
  const parts = [pgError['message']];
  for (const k of ['description', 'hint']) if (typeof pgError[k] === 'string' && pgError[k] !== '') parts.push(`${k}: ${pgError[k] as string}`);
  return `${parts.join('; ')} (${base})`;
}

const ANSI = { red: '\u001b[31m', green: '\u001b[32m', cyan: '\u001b[36m', bold: '\u001b[1m', reset: '\u001b[0m' };

/** `text` in `colour` when the Io is coloured. */
export function paint(io: Io, colour: keyof typeof ANSI, text: string): string {
  return io.color ? `${ANSI[colour]}${text}${ANSI.reset}` : text;
}
