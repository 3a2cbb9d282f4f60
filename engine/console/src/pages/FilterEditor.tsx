/**
 * A boolean expression (a permission's row filter or check) edited two ways:
 * a builder of `column operator value` conditions joined by AND, and the raw
 * JSON, which can say anything the engine accepts (relationships, _or, _not,
 * _exists). The JSON is the value; the builder shows it when it is a plain AND
 * of column conditions and rewrites it on every change.
 */
import { useState } from 'react';
import { coerce, type DbColumn } from '../introspect.ts';

const OPS = ['_eq', '_neq', '_gt', '_gte', '_lt', '_lte', '_in', '_nin', '_like', '_ilike', '_is_null'];

interface Cond {
  column: string;
  op: string;
  value: string;
}

/** The builder's conditions for `expr`, or null when it is more than an AND of column conditions. */
function toConds(expr: unknown, columns: readonly DbColumn[]): Cond[] | null {
  if (typeof expr !== 'object' || expr === null || Array.isArray(expr)) return null;
  const parts: unknown[] = [];
  for (const [k, v] of Object.entries(expr)) {
    if (k === '_and' && Array.isArray(v)) parts.push(...(v as unknown[]));
    else parts.push({ [k]: v });
  }
  const out: Cond[] = [];
  for (const p of parts) {
    if (typeof p !== 'object' || p === null) return null;
    const entries = Object.entries(p);
    if (entries.length !== 1) return null;
    const [column, cmp] = entries[0]!;
    if (!columns.some((c) => c.name === column) || typeof cmp !== 'object' || cmp === null) return null;
    const ops = Object.entries(cmp);
    if (ops.length !== 1 || !OPS.includes(ops[0]![0])) return null;
    const [op, value] = ops[0]!;
    out.push({ column, op, value: Array.isArray(value) ? value.map(String).join(',') : String(value) });
  }
  return out;
}

/** A value the way the builder writes it: session variables (`X-Engine-…`) stay strings. */
function valueOf(column: DbColumn | undefined, op: string, text: string): unknown {
  if (op === '_is_null') return text.trim() !== 'false';
  const one = (t: string) => (/^x-engine-/i.test(t) ? t : coerce(column, t));
  if (op === '_in' || op === '_nin') return text.split(',').map((t) => one(t.trim()));
  return one(text);
}

function fromConds(conds: Cond[], columns: readonly DbColumn[]): unknown {
  const parts = conds.map((c) => ({
    [c.column]: {
      [c.op]: valueOf(
        columns.find((x) => x.name === c.column),
        c.op,
        c.value,
      ),
    },
  }));
  if (parts.length === 0) return {};
  return parts.length === 1 ? parts[0] : { _and: parts };
}

export function FilterEditor({
  id,
  label,
  value,
  onChange,
  columns,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (json: string) => void;
  columns: readonly DbColumn[];
}) {
  const [mode, setMode] = useState<'builder' | 'json'>('builder');
  let parsed: unknown;
  let parseError: string | null = null;
  try {
    parsed = JSON.parse(value === '' ? '{}' : value);
  } catch (e) {
    parseError = e instanceof Error ? e.message : String(e);
  }
  const conds = parseError === null ? toConds(parsed, columns) : null;
  const setConds = (next: Cond[]) => onChange(JSON.stringify(fromConds(next, columns)));
  return (
    <fieldset>
      <legend>{label}</legend>
      <div className="row" role="group" aria-label={`${label}: editor`}>
        <label>
          <input type="radio" name={`${id}-mode`} checked={mode === 'builder'} onChange={() => setMode('builder')} /> Builder
        </label>
        <label>
          <input type="radio" name={`${id}-mode`} checked={mode === 'json'} onChange={() => setMode('json')} /> JSON
        </label>
        <button type="button" className="btn small" onClick={() => onChange('{}')}>
          Without any checks
        </button>
      </div>
      {mode === 'builder' &&
        (conds === null ? (
          <p className="muted">This expression is more than an AND of column conditions: edit it as JSON.</p>
        ) : (
          <>
            {conds.length === 0 && <p className="muted">No condition: every row.</p>}
            {conds.map((c, i) => (
              <div className="row" key={i}>
                <select
                  aria-label={`${label} condition ${i + 1} column`}
                  value={c.column}
                  onChange={(e) => setConds(conds.map((x, j) => (j === i ? { ...x, column: e.target.value } : x)))}
                >
                  {columns.map((col) => (
                    <option key={col.name} value={col.name}>
                      {col.name}
                    </option>
                  ))}
                </select>
                <select
                  aria-label={`${label} condition ${i + 1} operator`}
                  value={c.op}
                  onChange={(e) => setConds(conds.map((x, j) => (j === i ? { ...x, op: e.target.value } : x)))}
                >
                  {OPS.map((op) => (
                    <option key={op} value={op}>
                      {op}
                    </option>
                  ))}
                </select>
                <input
                  aria-label={`${label} condition ${i + 1} value`}
                  value={c.value}
                  placeholder="value or X-Engine-User-Id"
                  onChange={(e) => setConds(conds.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
                />
                <button
                  type="button"
                  className="btn small"
                  aria-label={`Remove ${label} condition ${i + 1}`}
                  onClick={() => setConds(conds.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </div>
            ))}
            <button type="button" className="btn small" onClick={() => setConds([...conds, { column: columns[0]?.name ?? '', op: '_eq', value: '' }])}>
              Add condition
            </button>
          </>
        ))}
      <div className="field">
        <label htmlFor={`${id}-json`}>{label} (JSON)</label>
        <textarea
          id={`${id}-json`}
          rows={mode === 'json' ? 8 : 3}
          value={value}
          readOnly={mode !== 'json'}
          spellCheck={false}
          onChange={(e) => onChange(e.target.value)}
        />
        {parseError !== null && (
          <span className="error" role="alert">
            Not JSON: {parseError}
          </span>
        )}
      </div>
    </fieldset>
  );
}
