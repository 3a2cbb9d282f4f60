/**
 * The column operators of the permission JSON, with the aliases v2 accepts
 * (compat.md): `_ne`/`$neq` for `_neq`, `_has_any_keys` for `_has_keys_any`,
 * `$eq`-style `$` prefixes. The catalog validates permissions with this table
 * and graphql/to-ir/permission-bool-exp.ts converts them with it, so both
 * agree on what is a known operator.
 */
import { didYouMean } from '../errors/suggest.ts';

/** Canonical operator names (v2 GraphQL spelling without the leading `_`). */
export type PermissionOperator =
  | 'eq'
  | 'neq'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'in'
  | 'nin'
  | 'is_null'
  | 'like'
  | 'nlike'
  | 'ilike'
  | 'nilike'
  | 'similar'
  | 'nsimilar'
  | 'regex'
  | 'nregex'
  | 'iregex'
  | 'niregex'
  | 'contains'
  | 'contained_in'
  | 'has_key'
  | 'has_keys_any'
  | 'has_keys_all'
  | 'ceq'
  | 'cneq'
  | 'cgt'
  | 'cgte'
  | 'clt'
  | 'clte';

const BY_NAME: Readonly<Record<string, PermissionOperator>> = {
  eq: 'eq',
  ne: 'neq',
  neq: 'neq',
  gt: 'gt',
  gte: 'gte',
  lt: 'lt',
  lte: 'lte',
  in: 'in',
  nin: 'nin',
  is_null: 'is_null',
  like: 'like',
  nlike: 'nlike',
  ilike: 'ilike',
  nilike: 'nilike',
  similar: 'similar',
  nsimilar: 'nsimilar',
  regex: 'regex',
  nregex: 'nregex',
  iregex: 'iregex',
  niregex: 'niregex',
  contains: 'contains',
  contained_in: 'contained_in',
  has_key: 'has_key',
  has_keys_any: 'has_keys_any',
  has_any_keys: 'has_keys_any',
  has_keys_all: 'has_keys_all',
  has_all_keys: 'has_keys_all',
  ceq: 'ceq',
  cne: 'cneq',
  cneq: 'cneq',
  cgt: 'cgt',
  cgte: 'cgte',
  clt: 'clt',
  clte: 'clte',
};

/** Operators that take a list (a JSON array, or an array session variable). */
export const LIST_OPERATORS: ReadonlySet<PermissionOperator> = new Set(['in', 'nin', 'has_keys_any', 'has_keys_all']);

/** Operators that only make sense on json/jsonb columns. */
export const JSON_OPERATORS: ReadonlySet<PermissionOperator> = new Set(['contains', 'contained_in', 'has_key', 'has_keys_any', 'has_keys_all']);

/** Column comparison operators: the value names another column of the same row. */
export const COLUMN_OPERATORS: ReadonlySet<PermissionOperator> = new Set(['ceq', 'cneq', 'cgt', 'cgte', 'clt', 'clte']);

/** The canonical operator of a key such as `_eq`, `$neq`, `_has_any_keys`; undefined when unknown. */
export function permissionOperator(key: string): PermissionOperator | undefined {
  if (!key.startsWith('_') && !key.startsWith('$')) return undefined;
  return BY_NAME[key.slice(1)];
}

/** Which connective a key is (`_and`/`$and`, `_or`, `_not`/`$not`/`not`, `_exists`), or null for a column or relationship. */
export function connective(key: string): 'and' | 'or' | 'not' | 'exists' | null {
  switch (key) {
    case '_and':
    case '$and':
      return 'and';
    case '_or':
    case '$or':
      return 'or';
    case '_not':
    case '$not':
    case 'not':
      return 'not';
    case '_exists':
    case '$exists':
      return 'exists';
    default:
      return null;
  }
}

/** `; did you mean "_eq"?` for an unknown operator key, in the key's own prefix (`_` or `$`), or the empty string. */
export function operatorHint(key: string): string {
  const prefix = key.startsWith('$') ? '$' : '_';
  return didYouMean(
    key,
    Object.keys(BY_NAME).map((n) => prefix + n),
  );
}
