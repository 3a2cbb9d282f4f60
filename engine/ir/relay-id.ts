/**
 * Note [Relay ids and cursors]
 * v2's Relay API identifies a row by a node id and a position in a
 * connection by a cursor, both base64 of JSON text:
 * - a node id is `[1, "<schema>", "<table>", <primary key values>…]`
 *   (version 1, what v2 emits; v2 also reads version 2, `[2, "<source>",
 *   "<backend>", {"schema", "name"}, <values>…]`, and so does Engine);
 * - a cursor is the JSON object of the row's sort keys by order_by field
 *   name (`{"name" : "Ann", "id" : 1}`), the primary key columns without
 *   an order_by.
 * The database writes both (json_build_array/json_build_object text, then
 * base64), so they are byte for byte v2's. Reading them back happens here:
 * a node id when the operation is turned into IR (it names the table read,
 * so a node id given as a variable is a structural variable), a cursor when
 * it is bound (`relay-cursor` encoding: the plan is the same for every
 * cursor, and the statement reads the keys out of the JSON text it is sent).
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

/** Strict base64 (either alphabet, padding optional) → UTF-8 text, or null. */
function base64Text(s: string): string | null {
  const clean = s.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) return null;
  return Buffer.from(clean, 'base64').toString('utf8');
}

/** The JSON text of a cursor, or v2's validation error at `path`. */
export function cursorJson(value: unknown, path: string): string {
  const invalid = new EngineError(ErrorCode.ValidationFailed, 'the "after" or "before" cursor is invalid', { path });
  if (typeof value !== 'string') throw invalid;
  const text = base64Text(value);
  if (text === null) throw invalid;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid;
  return text;
}

/** A decoded node id: the table (source when the id names one) and the primary key values in order. */
export interface NodeId {
  readonly source: string | null;
  /** Null when a version 2 id leaves it out: the default schema of the table's source. */
  readonly schema: string | null;
  readonly name: string;
  readonly values: readonly unknown[];
}

/** Decodes a node id, or throws v2's `invalid node id` validation error at `path`. */
export function decodeNodeId(value: unknown, path: string): NodeId {
  const invalid = (why: string): EngineError => new EngineError(ErrorCode.ValidationFailed, `invalid node id: ${why}`, { path });
  const text = typeof value === 'string' ? base64Text(value) : null;
  let parsed: unknown;
  try {
    parsed = text === null ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed)) throw invalid('expecting a JSON array');
  const [version, ...rest] = parsed as unknown[];
  if (version === undefined) throw invalid('unexpected GUID format, found empty list');
  if (version === 1) {
    const [schema, name, ...values] = rest;
    if (typeof schema !== 'string' || typeof name !== 'string' || values.length === 0) {
      throw invalid('GUID version 1: expecting schema name, table name and at least one column value');
    }
    return { source: null, schema, name, values };
  }
  if (version === 2) {
    const [source, , table, ...values] = rest;
    const t = table as { schema?: unknown; name?: unknown } | null;
    if (typeof source !== 'string' || typeof t !== 'object' || t === null || typeof t.name !== 'string' || values.length === 0) {
      throw invalid('GUID version 2: expecting source name, backend, table and at least one column value');
    }
    return { source, schema: typeof t.schema === 'string' ? t.schema : null, name: t.name, values };
  }
  if (typeof version === 'number') throw invalid(`unsupported GUID version: ${version}`);
  throw invalid('unexpected GUID format, needs to start with a version number');
}
