/**
 * What a catalog build needs from the databases, fetched before the build so
 * that the build itself is pure and synchronous: per source, an open
 * connection and its introspection (or why it could not be had), plus the rows
 * of its enum tables. Kept between builds and refreshed only when a source's
 * configuration changes, on `reload_metadata` and after `run_sql`.
 */
import type { SourceConnection } from '../backends/backend.ts';
import type { EnumTableRows, SourceIntrospection } from '../backends/introspection.ts';

/** A source whose database answered. */
export interface ReadySource {
  readonly ok: true;
  readonly name: string;
  /** Identifies the resolved configuration; a different key means a new connection. */
  readonly configKey: string;
  readonly connection: SourceConnection;
  readonly introspection: SourceIntrospection;
  /** Rows of enum tables by `schema.name`; a string is why they could not be read. */
  readonly enumRows: ReadonlyMap<string, EnumTableRows | string>;
}

/** A source that could not be connected to or introspected. */
export interface FailedSource {
  readonly ok: false;
  readonly name: string;
  readonly configKey: string;
  readonly reason: string;
}

/** A source as prepared for a build. */
export type PreparedSource = ReadySource | FailedSource;

/** Prepared sources by source name. */
export type PreparedSources = ReadonlyMap<string, PreparedSource>;
