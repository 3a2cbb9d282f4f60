/**
 * undici, loaded on first use.
 *
 * Note [HTTP client on first use]
 * undici (109 modules) is the HTTP client of action handlers, event and
 * scheduled-event webhooks and remote schemas, and most starts call none of
 * them before serving: importing it cost 31-36 ms of CPU at every start
 * even with the module compile cache (`import('undici')` after the
 * engine's other large packages, 2026-11-28). It is CommonJS, so a
 * synchronous require on the first call keeps its users' code synchronous,
 * as Note [Drivers load on first use] in backends/mssql/driver.ts does for
 * tedious.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);
let undiciModule: typeof Undici | undefined;

/** The undici module. */
export function undici(): typeof Undici {
  return (undiciModule ??= require('undici') as typeof Undici);
}
