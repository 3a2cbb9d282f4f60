/**
 * The SQL fragment tree. Dialect translators build fragments; only
 * {@link compileFragment} turns them into text, with the placeholder, quoting
 * and cast syntax of a {@link Dialect}. Identifiers are quoted there, values
 * are always parameter slots, and raw text is reserved for keywords and
 * operators written in backends/ code. See architecture.md, "Backend
 * abstraction".
 */
import type * as ir from '../../ir/index.ts';

/** A piece of SQL. */
export type Fragment =
  | { readonly kind: 'raw'; readonly text: string }
  | { readonly kind: 'ident'; readonly name: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'param'; readonly source: ir.ParamSource; readonly cast: string | null; readonly type: ParamType | null }
  | { readonly kind: 'seq'; readonly parts: readonly Fragment[] };

/**
 * The database type of a parameter's value: one value of `dbType`, or a list
 * of them (`_in`). Drivers that must type their parameters (tedious for
 * nulls, BigQuery for arrays) read it; PostgreSQL infers types from the text.
 */
export interface ParamType {
  readonly dbType: string;
  readonly list: boolean;
}

/**
 * A compiled statement: text with the dialect's placeholders and the source
 * of each parameter, in placeholder order, with its type (null: untyped).
 * Types are per statement, so binding a request costs nothing more.
 */
export interface CompiledSql {
  readonly text: string;
  readonly params: readonly ir.ParamSource[];
  readonly paramTypes: readonly (ParamType | null)[];
  /**
   * How the statement's dialect reads a session variable used as an array
   * (encoding `session-array`): {@link Dialect.sessionArray}. Absent: the text is sent as it is.
   */
  readonly sessionArray?: (text: string) => unknown;
}

/** Keywords/operators written in backends/ code. Never pass request data here. */
export function raw(text: string): Fragment {
  return { kind: 'raw', text };
}

/** A quoted identifier (names come from metadata only). */
export function ident(name: string): Fragment {
  return { kind: 'ident', name };
}

/** `"schema"."name"`. */
export function qualified(schema: string, name: string): Fragment {
  return seq([ident(schema), raw('.'), ident(name)]);
}

/** A string literal for metadata-derived text (JSON keys, type names). */
export function stringLiteral(value: string): Fragment {
  return { kind: 'string', value };
}

/** The type a cast gives a parameter (`text[]`: a list of text). */
function castType(cast: string | null): ParamType | null {
  if (cast === null) return null;
  return cast.endsWith('[]') ? { dbType: cast.slice(0, -2), list: true } : { dbType: cast, list: false };
}

/**
 * A parameter slot, optionally cast to a database type (`($1)::jsonb` on
 * PostgreSQL); `type` is its value's type (default: the cast's).
 */
export function param(source: ir.ParamSource, cast: string | null = null, type: ParamType | null = castType(cast)): Fragment {
  return { kind: 'param', source, cast, type };
}

/** Fragments one after another. */
export function seq(parts: readonly Fragment[]): Fragment {
  return { kind: 'seq', parts };
}

/** Fragments separated by `sep`. */
export function join(parts: readonly Fragment[], sep: string): Fragment {
  const out: Fragment[] = [];
  const s = raw(sep);
  parts.forEach((p, i) => {
    if (i > 0) out.push(s);
    out.push(p);
  });
  return seq(out);
}

/** Tagged template: `sql\`SELECT ${f} FROM ${t}\`` with fragment holes. */
export function sql(strings: TemplateStringsArray, ...holes: Fragment[]): Fragment {
  const parts: Fragment[] = [];
  strings.forEach((s, i) => {
    if (s.length > 0) parts.push(raw(s));
    const h = holes[i];
    if (h !== undefined) parts.push(h);
  });
  return seq(parts);
}

/**
 * The text syntax of one SQL dialect: each backend folder defines one
 * (`$1` on PostgreSQL, `@P1` for tedious, `@p1` for BigQuery).
 */
export interface Dialect {
  /** An identifier, quoted (names come from metadata only). */
  quoteIdent(name: string): string;
  /** A string literal (metadata-derived text only). */
  quoteString(value: string): string;
  /** The placeholder of the `n`th parameter (1-based). */
  placeholder(n: number): string;
  /** A placeholder cast to a database type. */
  cast(placeholder: string, dbType: string): string;
  /**
   * A session variable's text used as an array (`_in: "X-Engine-Allowed-Ids"`)
   * as the parameter value the driver takes: the dialect's array syntax is its own.
   */
  sessionArray(text: string): unknown;
}

/** Key under which equal bind-time slots share one placeholder. */
function slotKey(s: ir.ParamSource): string | null {
  if (s.kind === 'variable') return `v:${s.encoding}:${s.name}`;
  if (s.kind === 'session') return `s:${s.encoding}:${s.name}`;
  return null;
}

/**
 * Compiles a fragment to text in `dialect`'s syntax. Bind-time slots naming
 * the same variable share a placeholder.
 */
export function compileFragment(f: Fragment, dialect: Dialect): CompiledSql {
  const chunks: string[] = [];
  const params: ir.ParamSource[] = [];
  const types: (ParamType | null)[] = [];
  const shared = new Map<string, number>();
  const walk = (x: Fragment): void => {
    switch (x.kind) {
      case 'raw':
        chunks.push(x.text);
        return;
      case 'ident':
        chunks.push(dialect.quoteIdent(x.name));
        return;
      case 'string':
        chunks.push(dialect.quoteString(x.value));
        return;
      case 'param': {
        const key = slotKey(x.source);
        let n = key === null ? undefined : shared.get(key);
        if (n === undefined) {
          params.push(x.source);
          types.push(x.type);
          n = params.length;
          if (key !== null) shared.set(key, n);
        }
        chunks.push(x.cast === null ? dialect.placeholder(n) : dialect.cast(dialect.placeholder(n), x.cast));
        return;
      }
      case 'seq':
        for (const p of x.parts) walk(p);
        return;
    }
  };
  walk(f);
  return { text: chunks.join(''), params, paramTypes: types, sessionArray: dialect.sessionArray };
}
