/**
 * The backend of a source of the document, and how its tables are named.
 *
 * Note [Source naming]
 * A source's tables are named by its backend (`Backend.naming`: the schema a
 * bare name is in, how a name prints in messages, its GraphQL base name, its
 * JSON shape in answers); v2 has one `TableName` per backend (`public` on
 * PostgreSQL, `dbo` on MSSQL, `{dataset, name}` on BigQuery). The backend of
 * a source is the one that prepared it (ReadySource.backend, for tests) else
 * its kind's. Metadata operations are given the naming of the source they act
 * on by the registry's source lookup (`OnSource`, Note [Operation prefix and
 * source kind] in metadata/registry.ts); catalog stages read it from the
 * resolved source (`ResolvedSource.backend`) or the table's draft
 * (`TableDraft.naming`). A source of a kind without a backend is inconsistent
 * but can still be listed and dropped: it is named by v2's default schema of
 * its kind (`DEFAULT_SCHEMA`). `parseTableName`/`formatTableName` in
 * model/document.ts take the default schema as a required argument and
 * serve only what knows no backend (the wire document, by kind).
 */
import type { Backend, TableNaming } from '../backends/backend.ts';
import { schemaNaming } from '../backends/naming.ts';
import { backendOf, findBackend } from '../backends/registry.ts';
import { DEFAULT_SCHEMA } from '../model/document.ts';
import type { PreparedSources } from './prepared.ts';
import type { SourceKind } from './types.ts';

/** A source as the document has it: its name and kind. */
export interface SourceRef {
  readonly name: string;
  readonly kind: SourceKind;
}

/** The backend that owns `source`: the one that prepared it, else its kind's; undefined for a kind without one. */
export function sourceBackend(source: SourceRef, prepared: PreparedSources): Backend | undefined {
  const p = prepared.get(source.name);
  return (p?.ok === true ? p.backend : undefined) ?? findBackend(source.kind);
}

const KIND_NAMINGS = new Map<SourceKind, TableNaming>();

/** How `source`'s tables are named: its backend's naming, or v2's for a kind without a backend (Note [Source naming]). */
export function sourceNaming(source: SourceRef, prepared: PreparedSources): TableNaming {
  const backend = sourceBackend(source, prepared);
  if (backend !== undefined) return backend.naming;
  let naming = KIND_NAMINGS.get(source.kind);
  if (naming === undefined) KIND_NAMINGS.set(source.kind, (naming = schemaNaming(DEFAULT_SCHEMA[source.kind])));
  return naming;
}

/** How `source`'s tables are named, from its catalog entry when it has one (consistent), else from its kind. */
export function catalogNaming(source: SourceRef, info: { readonly kind: SourceKind; readonly backend?: Backend } | undefined): TableNaming {
  return info === undefined ? sourceNaming(source, NOTHING_PREPARED) : backendOf(info).naming;
}

const NOTHING_PREPARED: PreparedSources = new Map();
