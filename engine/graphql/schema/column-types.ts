/**
 * GraphQL types for columns: the output type of a column and the
 * `<scalar>_comparison_exp` input it is filtered with. Enum tables become
 * GraphQL enums (`<t>_enum`) used by the columns that reference them.
 */
import {
  GraphQLBoolean,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import type { ColumnInfo, SourceInfo } from '../../catalog/types.ts';
import { tableKey } from '../../catalog/types.ts';
import { ARRAY_OPERATORS } from '../operators/array.ts';
import { ENUM_OPERATORS } from '../operators/equality.ts';
import { operatorsForScalar } from '../operators/for-type.ts';
import { OPERATOR_EXTENSION, type OperatorSpec } from '../operators/operator.ts';
import { generatedEnumType, generatedInputObjectType, listOfNonNull, nonNull, nullProto } from './lean-types.ts';
import { arrayComparisonExpName, castExpName, comparisonExpName, isGraphqlName } from './names.ts';
import { sourceTableTypeNames } from './type-customization.ts';
import { comparisonSupport, scalarInfo, ScalarRegistry } from './scalars.ts';

/** `extensions` key marking the GraphQL enum of an enum table (its values are data, never renamed). */
export const ENUM_TABLE_EXTENSION = 'engineEnumTable';

/** Column types of one schema, each created once. */
export class ColumnTypes {
  readonly scalars = new ScalarRegistry();
  readonly #comparisons = new Map<string, GraphQLInputObjectType>();
  readonly #enums = new Map<string, GraphQLEnumType>();

  /** The enum type of an enum-table column, or null for other columns. */
  enumOf(source: SourceInfo, column: ColumnInfo): GraphQLEnumType | null {
    if (column.enumTable === null) return null;
    const table = source.tables.get(tableKey(column.enumTable));
    if (table === undefined || table.enumValues === null) return null;
    const name = sourceTableTypeNames(table.gqlName, source.customization).enumType;
    let t = this.#enums.get(name);
    if (t === undefined) {
      const values: Record<string, { value: string; description: string | null }> = {};
      for (const v of table.enumValues) {
        if (isGraphqlName(v.value)) values[v.value] = { value: v.value, description: v.comment };
      }
      t = generatedEnumType({ name, values, description: table.description, extensions: nullProto({ [ENUM_TABLE_EXTENSION]: true }) });
      this.#enums.set(name, t);
    }
    return t;
  }

  /** The element (or whole) named type of a column, without list/non-null wrappers. */
  #baseType(source: SourceInfo, column: ColumnInfo): GraphQLEnumType | ReturnType<ScalarRegistry['forDbType']> {
    return this.enumOf(source, column) ?? this.scalars.forDbType(source, column.elementType ?? column.dbType);
  }

  /** The output type of a column (`[Int!]` for int4[], non-null when the column is). */
  output(source: SourceInfo, column: ColumnInfo): GraphQLOutputType {
    const base = this.#baseType(source, column);
    const t = column.elementType !== null ? listOfNonNull(base) : base;
    return column.nullable ? t : nonNull(t);
  }

  /** The input type of one value of a column (by_pk arguments, operator operands). */
  input(source: SourceInfo, column: ColumnInfo): GraphQLInputType {
    const base = this.#baseType(source, column);
    return column.elementType !== null ? listOfNonNull(base) : base;
  }

  /** The comparison expression of a column. */
  comparison(source: SourceInfo, column: ColumnInfo): GraphQLInputObjectType {
    const enumType = this.enumOf(source, column);
    const enumTable = column.enumTable === null ? undefined : source.tables.get(tableKey(column.enumTable));
    if (enumType !== null && enumTable !== undefined) {
      const name = sourceTableTypeNames(enumTable.gqlName, source.customization).enumComparison;
      return this.#comparisonType(name, enumType, ENUM_OPERATORS);
    }
    if (column.elementType !== null) {
      const el = this.scalars.forDbType(source, column.elementType);
      return this.#comparisonType(arrayComparisonExpName(el.name), new GraphQLList(new GraphQLNonNull(el)), ARRAY_OPERATORS);
    }
    return this.scalarComparison(source, column.dbType);
  }

  /**
   * The comparison expression of a database scalar type (`int4` → `Int_comparison_exp`), for values that are no column;
   * a backend with its own operators names it with its infix (Note [Comparison operators per backend] in operators/for-type.ts).
   */
  scalarComparison(source: SourceInfo, dbType: string): GraphQLInputObjectType {
    const scalar = this.scalars.forDbType(source, dbType);
    const support = comparisonSupport(source);
    const name = comparisonExpName(support === undefined ? scalar.name : `${scalar.name}${support.typeInfix}`);
    return this.#comparisonType(name, scalar, operatorsForScalar(scalarInfo(source, dbType).operators, support), scalar.name);
  }

  /** `typeName`: the type its description names (default: the name without `_comparison_exp`). */
  #comparisonType(
    name: string,
    value: GraphQLInputType,
    ops: readonly OperatorSpec[],
    typeName = name.replace(/_comparison_exp$/, ''),
  ): GraphQLInputObjectType {
    let t = this.#comparisons.get(name);
    if (t !== undefined) return t;
    t = generatedInputObjectType({
      name,
      description: `Boolean expression to compare columns of type "${typeName}". All fields are combined with logical 'AND'.`,
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = {};
        for (const op of ops) fields[op.field] = { type: this.#operandType(op, value), extensions: nullProto({ [OPERATOR_EXTENSION]: op }) };
        return fields;
      },
    });
    this.#comparisons.set(name, t);
    return t;
  }

  #operandType(op: OperatorSpec, value: GraphQLInputType): GraphQLInputType {
    switch (op.operand) {
      case 'value':
        return value;
      case 'list':
      case 'array-list':
        return new GraphQLList(new GraphQLNonNull(value));
      case 'boolean':
        return GraphQLBoolean;
      case 'string':
        return GraphQLString;
      case 'string-list':
        return new GraphQLList(new GraphQLNonNull(GraphQLString));
      case 'cast':
        return this.#castType(value);
    }
  }

  /** `jsonb_cast_exp { String: String_comparison_exp }`. */
  #castType(value: GraphQLInputType): GraphQLInputObjectType {
    const name = castExpName('name' in value ? String(value.name) : 'value');
    let t = this.#comparisons.get(name);
    if (t === undefined) {
      const text = this.#comparisonType(comparisonExpName('String'), GraphQLString, operatorsForScalar('text'));
      t = generatedInputObjectType({ name, fields: { String: { type: text } } });
      this.#comparisons.set(name, t);
    }
    return t;
  }
}
