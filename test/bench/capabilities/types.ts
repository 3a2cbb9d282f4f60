/**
 * The contract between `npm run bench` and a capability's bench cell (one
 * module per capability in this folder; see README.md).
 */
import type { BenchPostgres } from '../lib/postgres.ts';

/** What the runner gives a cell. */
export interface CapabilityContext {
  /** The run's embedded PostgreSQL (fsync off); a cell makes its own databases with `createDatabase`. */
  readonly postgres: BenchPostgres;
  /** `--quick`: a smoke run of seconds, not the figures to report. */
  readonly quick: boolean;
  /** Measured seconds per load run (`--seconds`). */
  readonly seconds: number;
  /** Concurrent connections of HTTP load (`--connections`). */
  readonly connections: number;
  /** Progress lines (indented under the cell's heading). */
  log(line: string): void;
}

/** One table of figures: every row has the same keys, in the order shown. */
export interface CapabilityTable {
  readonly title: string;
  readonly rows: ReadonlyArray<Readonly<Record<string, string | number | null>>>;
}

/** What a cell reports. */
export interface CapabilityResult {
  readonly tables: readonly CapabilityTable[];
  /** How the figures were made (peers, shapes, caveats). */
  readonly notes: readonly string[];
}

/** A module's default export. */
export type CapabilityBench = (ctx: CapabilityContext) => Promise<CapabilityResult>;
