/**
 * tedious and tarn, loaded on first use.
 *
 * Note [Drivers load on first use]
 * Every backend is registered, so every engine imports every backend folder, and most engines
 * never open an MSSQL source. The driver packages are required when a source first connects (or a
 * statement is first typed), not at import: engines without an MSSQL source neither pay their
 * start-up time nor keep their modules in memory. Both are CommonJS, so a synchronous require keeps
 * the Backend interface synchronous (`connect` returns a connection at once). Measured with
 * `npm run bench:scale` (2,000 tables × 10 roles): importing tedious, tarn and the BigQuery client at
 * start added ~1 s to restart → /healthz and ~55 MiB of RSS; loaded lazily, neither shows.
 */
import { createRequire } from 'node:module';
import type Tedious from 'tedious';
import type Tarn from 'tarn';

const require = createRequire(import.meta.url);
let tediousModule: typeof Tedious | undefined;
let tarnModule: typeof Tarn | undefined;

/** The tedious module. */
export function tedious(): typeof Tedious {
  return (tediousModule ??= require('tedious') as typeof Tedious);
}

/** The tarn module (tedious has no pool of its own). */
export function tarn(): typeof Tarn {
  return (tarnModule ??= require('tarn') as typeof Tarn);
}
