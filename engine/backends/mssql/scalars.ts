/**
 * The GraphQL face of SQL Server types (v2 compat: its MSSQL backend maps
 * `int` to Int, `bit` to Boolean, `float` to Float, `nchar`/`nvarchar`/`ntext`
 * to String, and names every other type after itself: `bigint`, `decimal`,
 * `datetime2`, `datetimeoffset`, `uniqueidentifier`, `varbinary`, `varchar`...).
 * Types are the base names of `sys.types` (introspect.ts), lower case.
 */
import type { LiteralClass, ScalarInfo, TypeNames } from '../backend.ts';

const BUILTIN: Readonly<Record<string, string>> = {
  int: 'Int',
  bit: 'Boolean',
  float: 'Float',
  nchar: 'String',
  nvarchar: 'String',
  ntext: 'String',
};

/** v2 compat: its `stringTypes`, which have `_like`/`_nlike`. */
const TEXT = new Set(['char', 'varchar', 'text', 'nchar', 'nvarchar', 'ntext']);
/** Text types an enum table's key may have (not the deprecated LOB types, which cannot be compared). */
const TEXTUAL = new Set(['char', 'varchar', 'nchar', 'nvarchar']);

/** v2 compat: `isNumType`, plus the money types. */
const NUMERIC = new Set(['numeric', 'decimal', 'int', 'smallint', 'float', 'real', 'bigint', 'tinyint', 'money', 'smallmoney']);

/** Numbers that may not fit a double (stringify-numeric-types). */
const BIG_NUMERIC = new Set(['bigint', 'numeric', 'decimal', 'money']);

/**
 * v2 compat: `isComparableType` is false for binary, varbinary, bit and
 * uniqueidentifier; SQL Server itself cannot MAX/MIN/sort the LOB and
 * spatial types.
 */
const UNORDERED = new Set([
  'binary',
  'varbinary',
  'bit',
  'uniqueidentifier',
  'text',
  'ntext',
  'image',
  'xml',
  'geography',
  'geometry',
  'hierarchyid',
  'sql_variant',
]);
/** Types SQL Server cannot put in ORDER BY or compare with `=`. */
const UNSORTABLE = new Set(['text', 'ntext', 'image', 'xml', 'geography', 'geometry']);

const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  tinyint: [0n, 255n],
  smallint: [-32768n, 32767n],
  int: [-2147483648n, 2147483647n],
  bigint: [-9223372036854775808n, 9223372036854775807n],
};

const DECIMAL = new Set(['numeric', 'decimal', 'float', 'real', 'money', 'smallmoney']);
const DATE_TIME = new Set(['date', 'time', 'datetime', 'datetime2', 'datetimeoffset', 'smalldatetime']);

function literalClass(dbType: string): LiteralClass {
  const range = INTEGER_RANGES[dbType];
  if (range !== undefined) return { kind: 'integer', min: range[0], max: range[1] };
  if (DECIMAL.has(dbType)) return { kind: 'decimal' };
  if (dbType === 'bit') return { kind: 'boolean' };
  if (dbType === 'uniqueidentifier') return { kind: 'uuid' };
  if (DATE_TIME.has(dbType)) return { kind: 'datetime' };
  return { kind: 'other' };
}

/** The database types the IR carries where no column gives one. */
export const MSSQL_TYPES: TypeNames = {
  count: 'int',
  boolean: 'bit',
  text: 'nvarchar',
  aggregateCount: 'int',
  actionScalars: [
    'bigint',
    'smallint',
    'tinyint',
    'decimal',
    'numeric',
    'real',
    'date',
    'time',
    'datetime',
    'datetime2',
    'datetimeoffset',
    'uniqueidentifier',
    'varchar',
    'char',
    'varbinary',
  ],
};

const known = new Map<string, ScalarInfo>();

/** The GraphQL face of a SQL Server type; one object per type name. */
export function mssqlScalar(dbType: string): ScalarInfo {
  let s = known.get(dbType);
  if (s === undefined) {
    s = {
      graphqlName: BUILTIN[dbType] ?? dbType,
      builtin: BUILTIN[dbType] !== undefined,
      encoding: 'plain',
      operators: TEXT.has(dbType) ? 'text' : 'equality',
      numeric: NUMERIC.has(dbType),
      ordered: !UNORDERED.has(dbType),
      bigNumeric: BIG_NUMERIC.has(dbType),
      literal: literalClass(dbType),
      textual: TEXTUAL.has(dbType),
      json: false,
      sortable: !UNSORTABLE.has(dbType),
    };
    known.set(dbType, s);
  }
  return s;
}

/**
 * The type a value of `dbType` is read as from JSON text (OPENJSON ... WITH):
 * text for everything SQL Server converts from text exactly on assignment
 * and comparison (numbers, dates, GUIDs: no precision is lost to a guessed
 * length or scale), and the types text does not convert to implicitly.
 */
export function jsonReadType(dbType: string): string {
  switch (dbType) {
    case 'bit':
      return 'BIT';
    case 'binary':
    case 'varbinary':
    case 'image':
      // OPENJSON decodes a base64 string into binary, as FOR JSON encodes it.
      return 'VARBINARY(MAX)';
    case 'char':
    case 'varchar':
    case 'text':
      return 'VARCHAR(MAX)';
    default:
      return 'NVARCHAR(MAX)';
  }
}
