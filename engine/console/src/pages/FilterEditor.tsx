/**
 * A boolean expression (a permission's row filter or check) edited two ways:
 * a builder of `column operator value` conditions joined by AND, and the raw
 * JSON, which can say anything the engine accepts (relationships, _or, _not,
 * _exists). The JSON is the value. The builder keeps its own conditions with
 * each value as typed (Note [Typed text becomes a value once] in
 * ../introspect.ts) and writes the JSON from them on every change; it reads
 * its conditions from the JSON only when the JSON changed otherwise (typed
 * as JSON, cleared, first shown) and is a plain AND of column conditions that
 * the builder writes back unchanged.
 */
import { useState } from 'react';
import { parseValue, type DbColumn, type Parsed } from '../introspect.ts';

const OPS = ['_eq', '_neq', '_gt', '_gte', '_lt', '_lte', '_in', '_nin', '_like', '_ilike', '_is_null'];

interface Cond {
  column: string;
  op: string;
  /** The value as typed. */
  value: string;
  /** Whether the value's field was left since its last edit: only then is a problem shown beside it. */
  left?: boolean;
}

const isSessionVariable = (text: string) => /^x-engine-/i.test(text);

/** A condition's value as the builder writes it: session variables (`X-Engine-…`) stay strings. */
function condValue(column: DbColumn | undefined, op: string, text: string): Parsed {
  if (op === '_is_null') {
    const t = text.trim();
    return t === 'true' || t === 'false' ? { ok: true, value: t === 'true' } : { ok: false, problem: `${JSON.stringify(text)} is not true or false` };
  }
  const one = (t: string): Parsed => (isSessionVariable(t) ? { ok: true, value: t } : parseValue(column, t));
  if (op === '_in' || op === '_nin') {
    if (text.trim() === '') return { ok: true, value: [] };
    const values: unknown[] = [];
    for (const t of text.split(',')) {
      const p = one(t.trim());
      if (!p.ok) return p;
      values.push(p.value);
    }
    return { ok: true, value: values };
  }
  return one(text);
}

/** How a stored value shows in a condition's field. */
function condText(value: unknown): string {
  if (Array.isArray(value)) return value.map(condText).join(',');
  if (typeof value === 'string') return value;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The builder's conditions for `expr`, or null when it is more than an AND of column conditions
 * or holds a value the builder would write differently (`"5"` for an integer column, a string
 * with a comma in `_in`): those are edited as JSON, so showing them never changes them.
 */
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
    const col = columns.find((c) => c.name === column);
    if (col === undefined || typeof cmp !== 'object' || cmp === null) return null;
    const ops = Object.entries(cmp);
    if (ops.length !== 1 || !OPS.includes(ops[0]![0])) return null;
    const [op, value] = ops[0]!;
    const text = condText(value);
    const back = condValue(col, op, text);
    if (!back.ok || JSON.stringify(back.value) !== JSON.stringify(value)) return null;
    out.push({ column, op, value: text });
  }
  return out;
}

function readConds(json: string, columns: readonly DbColumn[]): Cond[] | null {
  try {
    return toConds(JSON.parse(json === '' ? '{}' : json), columns);
  } catch {
    return null;
  }
}

/** The JSON the conditions say, and the first value that is not one of its column's type (written as typed meanwhile). */
function fromConds(conds: readonly Cond[], columns: readonly DbColumn[]): { json: string; problem: string | null } {
  let problem: string | null = null;
  const parts = conds.map((c, i) => {
    const p = condValue(
      columns.find((x) => x.name === c.column),
      c.op,
      c.value,
    );
    if (!p.ok) problem ??= `condition ${i + 1}: ${p.problem}`;
    return { [c.column]: { [c.op]: p.ok ? p.value : c.value } };
  });
  const expr = parts.length === 0 ? {} : parts.length === 1 ? parts[0] : { _and: parts };
  return { json: JSON.stringify(expr), problem };
}

/**
 * `onChange` gets the JSON and, when a condition's value is not a value of its column's type,
 * the problem (the caller refuses to save while there is one).
 */
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
  onChange: (json: string, problem: string | null) => void;
  columns: readonly DbColumn[];
}) {
  const [mode, setMode] = useState<'builder' | 'json'>('builder');
  // The builder's conditions and the JSON they were read from or wrote: read again only when the JSON differs.
  const [builder, setBuilder] = useState(() => ({ json: value, conds: readConds(value, columns) }));
  let current = builder;
  if (builder.json !== value) {
    current = { json: value, conds: readConds(value, columns) };
    setBuilder(current);
  }
  let parseError: string | null = null;
  try {
    JSON.parse(value === '' ? '{}' : value);
  } catch (e) {
    parseError = e instanceof Error ? e.message : String(e);
  }
  const conds = current.conds;
  const setConds = (next: Cond[]) => {
    const { json, problem } = fromConds(next, columns);
    setBuilder({ json, conds: next });
    onChange(json, problem);
  };
  const edit = (i: number, patch: Partial<Cond>) => setConds((conds ?? []).map((x, j) => (j === i ? { ...x, left: false, ...patch } : x)));
  const problems = (conds ?? []).map((c) => {
    const p = condValue(
      columns.find((x) => x.name === c.column),
      c.op,
      c.value,
    );
    return p.ok ? null : p.problem;
  });
  const shown = (i: number) => problems[i] !== null && conds?.[i]?.left === true;
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
        <button type="button" className="btn small" onClick={() => onChange('{}', null)}>
          Without any checks
        </button>
      </div>
      {mode === 'builder' &&
        (conds === null ? (
          <p className="muted">
            The builder cannot show this expression as it is (more than an AND of column conditions, or a value it would write differently): edit it as JSON.
          </p>
        ) : (
          <>
            {conds.length === 0 && <p className="muted">No condition: every row.</p>}
            {conds.map((c, i) => (
              <div className="row" key={i}>
                <select aria-label={`${label} condition ${i + 1} column`} value={c.column} onChange={(e) => edit(i, { column: e.target.value })}>
                  {columns.map((col) => (
                    <option key={col.name} value={col.name}>
                      {col.name}
                    </option>
                  ))}
                </select>
                <select aria-label={`${label} condition ${i + 1} operator`} value={c.op} onChange={(e) => edit(i, { op: e.target.value })}>
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
                  aria-invalid={problems[i] !== null}
                  aria-describedby={shown(i) ? `${id}-problem-${i}` : undefined}
                  onChange={(e) => edit(i, { value: e.target.value })}
                  onBlur={() => setBuilder({ json: current.json, conds: conds.map((x, j) => (j === i ? { ...x, left: true } : x)) })}
                />
                <button
                  type="button"
                  className="btn small"
                  aria-label={`Remove ${label} condition ${i + 1}`}
                  onClick={() => setConds(conds.filter((_, j) => j !== i))}
                >
                  ×
                </button>
                {shown(i) && (
                  <span id={`${id}-problem-${i}`} className="error" role="alert">
                    {problems[i]}
                  </span>
                )}
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
          onChange={(e) => onChange(e.target.value, null)}
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
