/**
 * A remote schema as the catalog holds it (resolved by
 * catalog/stages/remote-schemas.ts): where to send requests, the name
 * translations of its customization, and its views: the whole schema and
 * one per role with a (consistent) permission.
 */
import type { GraphQLInputType, GraphQLOutputType, GraphQLSchema } from 'graphql';
import type { TableInfo } from '../catalog/types.ts';
import type { JsonValue } from '../model/document.ts';
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
  /**
   * The relationships of its types (`create_remote_schema_remote_relationship`),
   * by customized type name; absent when there are none.
   */
  readonly typeRelationships?: ReadonlyMap<string, readonly RemoteTypeRelationship[]>;
}

/** One step of a relationship's `remote_field`: a field (original name) with its arguments (JSON, `$field` strings naming join fields). */
export interface RemoteFieldStep {
  readonly field: string;
  readonly arguments: Readonly<Record<string, JsonValue>>;
  /** Argument types in the remote's (original) schema, for writing join values. */
  readonly argumentTypes: Readonly<Record<string, GraphQLInputType>>;
}

/**
 * A consistent relationship of a remote schema's type: to a table
 * (`to_source`) or to another remote schema's field (`to_remote_schema`).
 * Join fields are the type's fields in original names.
 */
export type RemoteTypeRelationship =
  | {
      readonly kind: 'to_source';
      readonly name: string;
      /** The remote schema and the type (original name) it belongs to. */
      readonly remote: string;
      readonly typeName: string;
      readonly type: 'object' | 'array';
      readonly source: string;
      readonly table: TableInfo;
      /** Join field of the remote type → column of the table. */
      readonly mapping: ReadonlyArray<readonly [field: string, column: string]>;
    }
  | {
      readonly kind: 'to_remote_schema';
      readonly name: string;
      readonly remote: string;
      readonly typeName: string;
      /** The target remote schema, by name (catalog.remoteSchemas). */
      readonly target: string;
      readonly lhsFields: readonly string[];
      /** The field path from the target's query root; the last step is the joined field. */
      readonly path: readonly RemoteFieldStep[];
      /** The joined field's type in the target's customized full schema. */
      readonly fieldType: GraphQLOutputType;
    };
