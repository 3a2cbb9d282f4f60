/**
 * Stage "sources": each source of the document with its prepared database
 * (connection + introspection) and its customization, or why it is left
 * out: a kind without a backend, a database that could not be prepared, a bad
 * customization, or a graphql-default naming convention not shared by every
 * source (it renames the whole schema, so it must hold for all of them).
 */
import type { MetadataDocument, SourceMetadata } from '../../model/document.ts';
import type { Backend } from '../../backends/backend.ts';
import { inconsistency } from '../inconsistency.ts';
import { sourceBackend } from '../source-naming.ts';
import type { PreparedSources, ReadySource } from '../prepared.ts';
import type { InconsistentObject, SourceCustomizationInfo } from '../types.ts';
import { resolveSourceCustomization } from './customization.ts';
import type { StageResult } from './stage.ts';

/** A consistent source; later stages key their per-source outputs by this object. */
export interface ResolvedSource {
  readonly meta: SourceMetadata;
  /** The backend that owns it (Note [Source naming] in source-naming.ts). */
  readonly backend: Backend;
  readonly prepared: ReadySource;
  readonly customization: SourceCustomizationInfo;
}

/** Resolves the sources of `doc` against `prepared`. */
export function resolveSources(doc: MetadataDocument, prepared: PreparedSources): StageResult<readonly ResolvedSource[]> {
  const bad: InconsistentObject[] = [];
  let sources: ResolvedSource[] = [];
  for (const meta of doc.sources) {
    const ref = { kind: 'source', source: meta.name } as const;
    const p = prepared.get(meta.name);
    const backend = sourceBackend(meta, prepared);
    if (backend === undefined) {
      bad.push(inconsistency(ref, meta.name, `the ${meta.kind} backend is not supported yet`));
    } else if (p === undefined) {
      bad.push(inconsistency(ref, meta.name, `source "${meta.name}" was not prepared`));
    } else if (!p.ok) {
      bad.push(inconsistency(ref, meta.name, p.reason));
    } else {
      const customization = resolveSourceCustomization(meta.customization);
      if ('reason' in customization) bad.push(inconsistency(ref, meta.name, customization.reason));
      else sources.push({ meta, backend, prepared: p, customization });
    }
  }
  const isDefault = (s: ResolvedSource): boolean => s.customization.namingConvention === 'graphql-default';
  if (sources.some(isDefault) && !sources.every(isDefault)) {
    for (const s of sources.filter(isDefault)) {
      const reason = 'the graphql-default naming_convention must be set on every source';
      bad.push(inconsistency({ kind: 'source', source: s.meta.name }, s.meta.name, reason));
    }
    sources = sources.filter((s) => !isDefault(s));
  }
  return { output: sources, inconsistencies: bad };
}
