/**
 * What a catalog build needs from the databases, fetched before the build so
 * that the build itself is pure and synchronous: per source, an open
 * connection and its introspection (or why it could not be had), plus the rows
 * of its enum tables. Kept between builds and refreshed only when a source's
 * configuration changes, on `reload_metadata`, after `run_sql`, and when its
 * catalog changed outside the engine (Note [Introspection freshness]).
 */
import type { Backend, SourceConnection } from '../backends/backend.ts';
import type { EnumTableRows, SourceIntrospection } from '../backends/introspection.ts';
import type { MetadataDocument } from '../model/document.ts';

/*
 * Note [Preparers]
 * Everything a catalog build needs from outside the process is fetched
 * before it, by one preparer per kind of metadata object, so the build (and
 * each of its stages, Note [Catalog stages] in build.ts) stays pure and
 * synchronous and can run once per call of a `bulk`. A preparer maps the
 * objects of its kind in a document to prepared values by name, each either
 * ready or failed with a reason (the build reports a failed one as an
 * inconsistent object of that kind), reuses what it prepared before unless
 * told to refresh it, and owns the clients it opened. Two kinds: sources
 * (backends/source-preparer.ts: pools, introspection, enum rows) and remote
 * schemas (remote/remote-preparer.ts: ready with the introspected schema and
 * the resolved URL and headers, failed with why the server did not answer),
 * kept as `remotes` in MetadataState next to `prepared`, passed as the last
 * argument of buildCatalog and read by the "remote schemas" stage; an Edit's
 * `refreshRemotes` names remote schemas for `reload_remote_schema` and
 * `reload_metadata` as `refresh` names sources. A GraphQL request never
 * introspects a remote.
 */

/** Which objects to prepare afresh: none, some by name, or all. */
export type Refresh = ReadonlySet<string> | 'all';

/** What every prepared object has: its name, and whether it is usable. */
export interface PreparedObject {
  readonly name: string;
  readonly ok: boolean;
}

/** Prepares the objects of one kind for catalog builds; see Note [Preparers]. */
export interface ObjectPreparer<P extends PreparedObject> {
  /** Prepares the objects of this kind in `doc`, reusing `current` except those `refresh` names. */
  prepare(doc: MetadataDocument, current: ReadonlyMap<string, P>, refresh?: Refresh): Promise<ReadonlyMap<string, P>>;
  /** Releases (eventually) the clients only objects outside `keep` used. */
  retain(keep: ReadonlyMap<string, P>): void;
  /** Releases every client now (shutdown). */
  closeAll(): Promise<void>;
}

/** A source whose database answered. */
export interface ReadySource {
  readonly ok: true;
  readonly name: string;
  /**
   * The backend that owns this source, when it is not the registry's one of
   * its kind (tests: a backend with another naming); read it through
   * `sourceBackend` (source-naming.ts), which the catalog copies into SourceInfo.backend.
   */
  readonly backend?: Backend;
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
