/**
 * The root types of a role schema (`query_root`, `mutation_root`,
 * `subscription_root`, a source's namespace types), whose fields are made
 * once per field configuration.
 *
 * Note [Root fields across versions]
 * After a metadata change every role's root types are made anew, and with
 * them every root field: at 2,000 tables the admin's 22,000 (select, by-pk,
 * aggregate and stream per table, seven mutations), each a GraphQLField
 * with its arguments made by graphql-js from a configuration the
 * contributors made anew. Once the types were reused (Note [Types across
 * catalog versions] in schema-cache.ts) and their collection replayed
 * (Note [Collection replayed across versions] in collect-types.ts), those
 * were most of a role schema's build after tracking one table, and most of
 * its garbage. A table's root fields read nothing but its types, its
 * TableInfo and its source (all pinned by its TableTypes, which is made for
 * one TableInfo and reused only where what it reads is unchanged), and its
 * mutation fields its mutation types (pinned by `<t>_mutation_response`,
 * made anew with all of a role's mutation types whenever any table's write
 * shape changes: MutationTypes.following). So the table contributors keep
 * a table's field configurations with those types (WeakMaps in
 * table-root-fields.ts, stream-fields.ts, mutation-root.ts), and
 * {@link rootType} makes the GraphQLField of a configuration once and takes
 * it again wherever that configuration comes back under the same name: in
 * the next version's schema, in the schemas of other roles with that
 * table's types, on subscription_root for live queries. A field's
 * descriptor then names the view of the role that first made it, as the
 * descriptors of reused types do: to-ir reads only its shape (its
 * TableInfo, mapped to the requesting role's own view: Note [Shared role
 * types] in role-access.ts; its source's name, kind and customization). A
 * view holds its catalog version, though (its source, whose compile target
 * holds the introspection, and through its relationships every view of its
 * role), so keeping the fields of each table tracked in a row kept each
 * version: 4 MiB more heap per table tracked at 2,000 tables (`node
 * --expose-gc test/bench/track-profile.ts 2000 10 4`), up to
 * MAX_GENERATIONS in schema-cache.ts. So a kept field's descriptor names a
 * copy of the view ({@link shapeOf}) without relationships, holding the
 * source of the first catalog version of the run whose types may be reused
 * (name, kind, backend, connection and customization are the same in all
 * of them: `sameSurroundings` in schema-cache.ts), which the run's reused
 * types keep anyway.
 * What settled it, with Note [Collection replayed across versions] (`node
 * --expose-gc test/bench/track-profile.ts 2000 10 2 --collection` beside a
 * worktree of the commit before, quiet machine, CPU ms per table tracked):
 * the admin schema 435-485 → 166-189, every role 487-496 → 254-278, the
 * call (which builds the candidate admin schema) 1,047-1,316 → 665-714; the
 * first build unchanged (2,580 vs 2,440-2,540). The cost: the heap after gc
 * 205 → 219 MiB at 2,000 tables × 10 roles (the kept configurations with
 * their argument maps, the made fields set on their configurations, the collections).
 */
import { GraphQLObjectType, type GraphQLField, type GraphQLFieldConfig, type GraphQLFieldConfigMap, type GraphQLFieldMap } from 'graphql';
import type { SourceInfo } from '../../catalog/types.ts';
import { NO_EXTENSIONS, objectType } from './lean-types.ts';
import type { MutationView } from './mutation-view.ts';
import type { SchemaTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';

type FieldConfig = GraphQLFieldConfig<unknown, unknown>;

/**
 * Set on a configuration to the field made from it: Note [Root fields across
 * versions]. Not a WeakMap keyed by the configurations: one keyed by the
 * 22,000 new ones of a first build made every young collection walk it (see
 * Note [Which types are validated] in collect-types.ts); not enumerable, so
 * a spread configuration does not take it along.
 */
const MADE: unique symbol = Symbol('made');
type Made = FieldConfig & { [MADE]?: GraphQLField<unknown, unknown> };

/** A root type showing fields made before (graphql-js reads fields only through getFields). */
class RootType extends GraphQLObjectType {
  readonly #fields: GraphQLFieldMap<unknown, unknown>;

  constructor(name: string, fields: GraphQLFieldMap<unknown, unknown>) {
    super({ name, fields: {}, interfaces: [], extensionASTNodes: [], extensions: NO_EXTENSIONS });
    this.#fields = fields;
  }

  override getFields(): GraphQLFieldMap<unknown, unknown> {
    return this.#fields;
  }
}

/**
 * The object type `name` with the fields of `configs`, in their order, each
 * made once per configuration (Note [Root fields across versions]); with
 * `sameFieldsAs`, showing that type's very fields. `names`, when given, are
 * the keys of `configs` in order (listing thousands of keys costs a sort).
 */
export function rootType(
  name: string,
  configs: GraphQLFieldConfigMap<unknown, unknown>,
  sameFieldsAs?: GraphQLObjectType,
  names?: readonly string[],
): GraphQLObjectType {
  if (sameFieldsAs !== undefined) return new RootType(name, sameFieldsAs.getFields());
  const fields = Object.create(null) as GraphQLFieldMap<unknown, unknown>;
  let missing: GraphQLFieldConfigMap<unknown, unknown> | null = null;
  for (const key of names ?? Object.keys(configs)) {
    const config = configs[key] as Made;
    const field = config[MADE];
    if (field !== undefined && field.name === key) {
      fields[key] = field;
    } else {
      // Holds the key's place, so the fields keep the configurations' order.
      fields[key] = field as unknown as GraphQLField<unknown, unknown>;
      (missing ??= {})[key] = config;
    }
  }
  if (missing !== null) {
    // Made as graphql-js makes them, with the lean extensions and shared argument lists of lean-types.ts.
    const defined = objectType({ name, fields: missing }).getFields();
    for (const key in defined) {
      const field = defined[key] as GraphQLField<unknown, unknown>;
      fields[key] = field;
      const config = missing[key] as Made;
      if (Object.isExtensible(config)) Object.defineProperty(config, MADE, { value: field, writable: true, configurable: true });
    }
  }
  return new RootType(name, fields);
}

/**
 * The first source of each name in a run of catalog versions whose types
 * may be reused, by the run's column types (one LeafTypes per run: schema-cache.ts).
 */
const runSources = new WeakMap<object, Map<string, SourceInfo>>();

function runSource(types: SchemaTypes, source: SourceInfo): SourceInfo {
  let sources = runSources.get(types.columns);
  if (sources === undefined) {
    sources = new Map();
    runSources.set(types.columns, sources);
  }
  const first = sources.get(source.name);
  if (first !== undefined) return first;
  sources.set(source.name, source);
  return source;
}

/** `view` as the descriptor of a kept root field names it: Note [Root fields across versions]. */
export function shapeOf(view: TableView, types: SchemaTypes): TableView {
  return {
    source: runSource(types, view.source),
    info: view.info,
    names: view.names,
    columns: view.columns,
    filter: view.filter,
    limitCap: view.limitCap,
    allowAggregations: view.allowAggregations,
    redact: view.redact,
    relationships: [],
    ...(view.computedFields === undefined ? {} : { computedFields: view.computedFields }),
  };
}

/** A write view as the descriptor of a kept mutation field names it: Note [Root fields across versions]. */
export function writeShapeOf(view: MutationView, types: SchemaTypes): MutationView {
  return {
    source: runSource(types, view.source),
    info: view.info,
    names: view.names,
    select: view.select === null ? null : shapeOf(view.select, types),
    insert: view.insert,
    update: view.update,
    delete: view.delete,
    insertRelationships: [],
  };
}
