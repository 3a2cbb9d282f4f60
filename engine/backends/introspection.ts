/**
 * What a backend's introspection reports about a source database: the raw
 * facts the catalog resolves metadata against. Backend-neutral shapes; each
 * dialect folder fills them from its own system catalogs.
 */
import type { QualifiedName } from '../catalog/types.ts';

/** Relation kinds the catalog can track. */
export type RelationKind = 'table' | 'view' | 'materialized_view' | 'foreign_table' | 'partitioned_table';

/** `pg_type.typtype` classes, spelled out. */
export type TypeCategory = 'base' | 'enum' | 'composite' | 'domain' | 'range' | 'pseudo' | 'multirange';

/** One column as the database describes it. */
export interface IntrospectedColumn {
  readonly name: string;
  /** Ordinal position (attnum); stable across column renames. */
  readonly position: number;
  /** Type name (`int4`, `_text`, `my_enum`). */
  readonly dbType: string;
  /** Element type name for arrays, else null. */
  readonly elementType: string | null;
  readonly typeCategory: TypeCategory;
  /** Labels of an enum type (in sort order), else null. */
  readonly enumLabels: readonly string[] | null;
  readonly nullable: boolean;
  readonly hasDefault: boolean;
  /** Generated columns and identity-always columns cannot be written. */
  readonly isGenerated: boolean;
  readonly comment: string | null;
  /** The default as SQL (pg_get_expr), when the column has a plain default; for keys assigned before an insert. */
  readonly defaultSql?: string | null;
  /** An identity column's kind, else null (absent = unknown). */
  readonly identity?: 'always' | 'by-default' | null;
}

/** A primary key or unique constraint. */
export interface IntrospectedConstraint {
  readonly name: string;
  readonly columns: readonly string[];
}

/** A foreign key of a table. */
export interface IntrospectedForeignKey {
  readonly name: string;
  readonly target: QualifiedName;
  /** Pairs of [local column, target column], in constraint order. */
  readonly columnMapping: ReadonlyArray<readonly [string, string]>;
}

/** A table, view or similar relation. */
export interface IntrospectedTable {
  readonly name: QualifiedName;
  /** Database object id; stable across renames (used to follow a rename). */
  readonly oid: number;
  readonly kind: RelationKind;
  readonly comment: string | null;
  readonly columns: readonly IntrospectedColumn[];
  readonly primaryKey: IntrospectedConstraint | null;
  readonly uniqueConstraints: readonly IntrospectedConstraint[];
  readonly foreignKeys: readonly IntrospectedForeignKey[];
  readonly mutability: { readonly insertable: boolean; readonly updatable: boolean; readonly deletable: boolean };
}

/** One input argument of a database function. */
export interface IntrospectedFunctionArg {
  /** The declared name; null for an unnamed argument. */
  readonly name: string | null;
  readonly dbType: string;
  readonly elementType: string | null;
  readonly typeCategory: TypeCategory;
  /** True when the argument has a default (it is among the trailing `pronargdefaults`). */
  readonly hasDefault: boolean;
}

/** A database function (one overload). */
export interface IntrospectedFunction {
  readonly name: QualifiedName;
  readonly oid: number;
  readonly volatility: 'immutable' | 'stable' | 'volatile';
  readonly returnsSet: boolean;
  /** The return type's name and class (`int4`/base, `author`/composite). */
  readonly returnType: { readonly schema: string; readonly name: string; readonly typeCategory: TypeCategory };
  /** When the return type is the row type of a relation, that relation. */
  readonly returnTable: QualifiedName | null;
  /** The declared columns of a table-valued function that names no relation (BigQuery's `RETURNS TABLE<...>`). */
  readonly returnColumns?: readonly { readonly name: string | null; readonly dbType: string; readonly elementType: string | null }[];
  /** Input arguments (IN, INOUT, VARIADIC), in order. */
  readonly args: readonly IntrospectedFunctionArg[];
  readonly comment: string | null;
}

/** Everything introspection found in one source, tables keyed by `schema.name`. */
export interface SourceIntrospection {
  readonly tables: ReadonlyMap<string, IntrospectedTable>;
  /** Functions keyed by `schema.name`, every overload of a name in one list (absent = none were read). */
  readonly functions?: ReadonlyMap<string, readonly IntrospectedFunction[]>;
  /** A digest of everything found; equal digests mean nothing changed. */
  readonly fingerprint: string;
  /** The server's version as a number (PostgreSQL: server_version_num, 170002 for 17.2); absent when unknown. */
  readonly serverVersion?: number;
  /**
   * The DDL stamp read in the same snapshot (Introspector.ddlStamp): while
   * the database's stamp still equals it, this introspection is current.
   */
  readonly ddlStamp: string;
  /**
   * The database's identity read in the same statement
   * (StoredIntrospectionSupport.current); absent when unknown, and then
   * this introspection is never stored.
   */
  readonly identity?: string;
}

/** Which columns of an enum table to read its values from. */
export interface EnumTableQuery {
  readonly table: QualifiedName;
  readonly valueColumn: string;
  readonly commentColumn: string | null;
}

/** Rows of one enum table: value and optional comment, in value order. */
export type EnumTableRows = ReadonlyArray<{ readonly value: string; readonly comment: string | null }>;
