/**
 * A remote schema as the catalog holds it (resolved by
 * catalog/stages/remote-schemas.ts): where to send requests, the name
 * translations of its customization, and its views: the whole schema and
 * one per role with a (consistent) permission.
 */
import type { GraphQLSchema } from 'graphql';
import type { RemoteNames } from './customize.ts';
import type { RemoteEndpoint } from './definition.ts';
import type { Presets } from './permissions.ts';

/** One view of a remote schema: what a role sees, customized, and the presets to inject. */
export interface RemoteView {
  /** The view's schema with customized names; its root types are never exposed, only their fields. */
  readonly schema: GraphQLSchema;
  /** Presets in original names (empty for the whole schema). */
  readonly presets: Presets;
  /** Identifies the view in role fingerprints: `*` for the whole schema, the role otherwise. */
  readonly key: string;
}

/** A consistent remote schema. */
export interface RemoteSchemaInfo {
  readonly name: string;
  readonly endpoint: RemoteEndpoint;
  /** The schema as introspected (original names): preset values are typed by it. */
  readonly original: GraphQLSchema;
  readonly names: RemoteNames;
  /** `customization.root_fields_namespace`, if any. */
  readonly namespace: string | null;
  /** The whole schema (admin; every role while remote schema permissions are off). */
  readonly full: RemoteView;
  /** Views by role, from consistent permissions. */
  readonly roles: ReadonlyMap<string, RemoteView>;
}
