/**
 * Fills a compiled statement's parameter slots from the request's variables
 * and session. Arrays go in as one parameter (the driver writes the array
 * literal). bind.ts binds whole plans with it; the steps that bind statements
 * of their own at run time (mutation-plan.ts, remote-join.ts, action-step.ts)
 * import it from here, below bind.ts, so none of them imports bind.ts back.
 */
import type * as ir from '../ir/index.ts';
import type { BoundStatement } from '../backends/backend.ts';
import type { CompiledSql } from '../backends/sql/fragment.ts';
import type { Session } from '../auth/session.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { negativeRowCount } from '../errors/row-count.ts';
import { parseJsonPath } from '../ir/json-path.ts';
import { cursorJson } from '../ir/relay-id.ts';

function encode(value: unknown, encoding: ir.ValueEncoding): unknown {
  if (value === null || value === undefined) return null;
  switch (encoding) {
    case 'plain':
    case 'row-count':
      return value;
    case 'json-path':
      return typeof value === 'string' ? parseJsonPath(value, '$') : value;
    case 'relay-cursor':
      return cursorJson(value, '$');
    case 'json':
      return JSON.stringify(value);
    case 'json-each':
      return Array.isArray(value) ? value.map((x) => JSON.stringify(x)) : [JSON.stringify(value)];
    case 'session-array':
      // Read by the statement's dialect (valueOf); a value that is not text goes as it is.
      return value;
  }
}

/** How a statement without a dialect's reader takes a session array: as the text. */
const asText = (text: string): unknown => text;

function valueOf(
  p: ir.ParamSource,
  variables: Readonly<Record<string, unknown>>,
  session: Session,
  /** The statement's dialect's reading of a session variable used as an array (CompiledSql.sessionArray). */
  readArray: (text: string) => unknown,
): unknown {
  switch (p.kind) {
    case 'const':
      return p.value;
    case 'variable': {
      const v = variables[p.name];
      if ((v === null || v === undefined) && !p.allowNull) {
        throw new EngineError(ErrorCode.ValidationFailed, `unexpected null value for variable "${p.name}"`, {
          path: `$.variables.${p.name}`,
        });
      }
      if (p.encoding === 'row-count' && typeof v === 'number' && v < 0) throw negativeRowCount(`$.variables.${p.name}`);
      if (p.encoding === 'relay-cursor' && v !== null && v !== undefined) return cursorJson(v, `$.variables.${p.name}`);
      return encode(v, p.encoding);
    }
    case 'session': {
      const v = session.variables[p.name];
      if (v === undefined) {
        throw new EngineError(ErrorCode.NotFound, `missing session variable: "${p.name}"`, { path: '$' });
      }
      if (p.encoding === 'session-array') return readArray(v);
      // Note [JSON session values]: session values are text; for a JSON operand the text is the document.
      return p.encoding === 'json' ? v : encode(v, p.encoding);
    }
    case 'session-object':
      // v2 compat: a function's session argument is the JSON object of all session variables.
      return JSON.stringify(session.variables);
    case 'list':
      return p.items.map((i) => valueOf(i, variables, session, readArray));
    case 'json-doc':
      return JSON.stringify(docValue(p.doc, variables, session));
  }
}

/**
 * Note [JSON session values]
 * Session variables are text. v2 casts a session value compared with or preset into a json/jsonb
 * column to the column's type, so `X-Hasura-Tags: ["a","b"]` is the array `["a","b"]`, not the
 * string `"[\"a\",\"b\"]"`: comparison operands go as the text itself (the statement casts
 * it) and presets, which travel inside the JSON of the rows, are parsed here.
 */
function sessionJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new EngineError(ErrorCode.DataException, `invalid input syntax for type json: the session variable "${name}" is not JSON`, { path: '$' });
  }
}

/** The value of a JSON document (mutation input rows, action arguments); an absent variable is null. */
export function docValue(d: ir.JsonDoc, variables: Readonly<Record<string, unknown>>, session: Session): unknown {
  switch (d.kind) {
    case 'const':
      return d.value;
    case 'variable':
      return variables[d.name] ?? null;
    case 'session': {
      const v = session.variables[d.name];
      if (v === undefined) throw new EngineError(ErrorCode.NotFound, `missing session variable: "${d.name}"`, { path: '$' });
      return d.json === true ? sessionJson(d.name, v) : v;
    }
    case 'object':
      return Object.fromEntries(d.fields.map(([k, f]) => [k, docValue(f, variables, session)]));
    case 'array':
      return d.items.map((i) => docValue(i, variables, session));
  }
}

/** Binds `sql` for one request. */
export function bindStatement(sql: CompiledSql, variables: Readonly<Record<string, unknown>>, session: Session): BoundStatement {
  const params = sql.params;
  const readArray = sql.sessionArray ?? asText;
  const values = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) values[i] = valueOf(params[i] as ir.ParamSource, variables, session, readArray);
  return { text: sql.text, values, types: sql.paramTypes };
}
