/**
 * Looking up a relationship of a tracked table by name, in either list.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { RelationshipMetadata, TableMetadata } from '../../../model/document.ts';
import { argPath, type MetadataCall, type OnSource } from '../../operation.ts';

/** A relationship with the list it lives in. */
export interface FoundRelationship {
  readonly kind: 'object' | 'array';
  readonly rel: RelationshipMetadata;
}

/** The relationship `name` of `t`, if any. */
export function findRelationship(t: TableMetadata, name: string): FoundRelationship | undefined {
  const o = t.object_relationships.find((r) => r.name === name);
  if (o !== undefined) return { kind: 'object', rel: o };
  const a = t.array_relationships.find((r) => r.name === name);
  return a === undefined ? undefined : { kind: 'array', rel: a };
}

/** The relationship `name` of `t`; `not-exists` at `$.args.<key>` when there is none. */
export function requireRelationship(t: TableMetadata, name: string, call: MetadataCall, key: string, on: OnSource): FoundRelationship {
  const r = findRelationship(t, name);
  if (r === undefined) {
    throw new EngineError(ErrorCode.NotExists, `relationship "${name}" of table "${on.naming.format(t.table)}" does not exist`, { path: argPath(call, key) });
  }
  return r;
}

/** The list key of a relationship kind. */
export function relationshipListKey(kind: 'object' | 'array'): 'object_relationships' | 'array_relationships' {
  return kind === 'object' ? 'object_relationships' : 'array_relationships';
}
