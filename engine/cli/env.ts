/**
 * Reading one environment variable at use time, for metadata values given as
 * `{from_env: VAR}` (v2 compat). Lives in cli/ because only cli/ reads
 * process.env (architecture.md, layering rules).
 */

/** The value of environment variable `name`, or undefined when it is not set. */
export function resolveEnv(name: string): string | undefined {
  return process.env[name];
}
