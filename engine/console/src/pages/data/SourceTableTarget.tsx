/**
 * The `to_source` side of a remote relationship: a table of a source (any
 * source, as v2), object or array, and which of its columns each column of
 * this table joins (the target's columns from that source's introspection).
 */
import { useEffect, useState } from 'react';
import { messageOf } from '../../api.ts';
import { introspect, type DbColumn, type DbInfo } from '../../introspect.ts';
import { tableKey, type SourceEntry } from '../../metadata-state.tsx';
import type { SourceForm } from './remote-relationship.ts';

export function SourceTableTarget({
  value,
  onChange,
  sources,
  columns,
}: {
  value: SourceForm;
  onChange: (f: SourceForm) => void;
  sources: readonly SourceEntry[];
  /** This table's columns. */
  columns: readonly DbColumn[];
}) {
  const target = sources.find((s) => s.name === value.source);
  const [db, setDb] = useState<{ source: string; info: DbInfo } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (target === undefined) return;
    let live = true;
    introspect(target.name, target.kind).then(
      (info) => live && setDb({ source: target.name, info }),
      (e: unknown) => live && setError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [target?.name, target?.kind]);
  const targetColumns = db?.source === value.source ? (db.info.tables.find((t) => `${t.schema}.${t.name}` === value.table)?.columns ?? []) : [];
  const rows = value.mapping;
  const setRow = (i: number, patch: Partial<SourceForm['mapping'][number]>) =>
    onChange({ ...value, mapping: rows.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  return (
    <fieldset>
      <legend>Table of a source</legend>
      <div className="row">
        <label htmlFor="rr-source">Source</label>
        <select
          id="rr-source"
          value={value.source}
          onChange={(e) => onChange({ ...value, source: e.target.value, table: '', tableAsWritten: null, mapping: [] })}
        >
          <option value="">(pick one)</option>
          {sources.map((s) => (
            <option key={s.name} value={s.name}>
              {s.name} ({s.kind})
            </option>
          ))}
        </select>
        <label htmlFor="rr-table">Table</label>
        <select id="rr-table" value={value.table} onChange={(e) => onChange({ ...value, table: e.target.value, tableAsWritten: null, mapping: [] })}>
          <option value="">(pick one)</option>
          {(target?.tables ?? []).map((t) => (
            <option key={tableKey(t.table)} value={tableKey(t.table)}>
              {tableKey(t.table)}
            </option>
          ))}
        </select>
        <label htmlFor="rr-type">Relationship type</label>
        <select id="rr-type" value={value.type} onChange={(e) => onChange({ ...value, type: e.target.value === 'array' ? 'array' : 'object' })}>
          <option value="object">object (one row)</option>
          <option value="array">array (rows)</option>
        </select>
      </div>
      {error !== null && (
        <p className="error" role="alert">
          Could not read the tables of source {value.source}: {error}
        </p>
      )}
      {value.table !== '' && (
        <>
          {rows.map((m, i) => (
            <div className="row" key={i}>
              <select aria-label={`Field mapping ${i + 1} column`} value={m.from} onChange={(e) => setRow(i, { from: e.target.value })}>
                <option value="">(column)</option>
                {columns.map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name}
                  </option>
                ))}
              </select>
              <span aria-hidden="true">→</span>
              <select aria-label={`Field mapping ${i + 1} target column`} value={m.to} onChange={(e) => setRow(i, { to: e.target.value })}>
                <option value="">(target column)</option>
                {/* A mapped column the target no longer lists still shows, so the form says what is stored. */}
                {[...targetColumns.map((c) => c.name), ...(m.to !== '' && !targetColumns.some((c) => c.name === m.to) ? [m.to] : [])].map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
              <button
                type="button"
                className="btn small"
                aria-label={`Remove field mapping ${i + 1}`}
                onClick={() => onChange({ ...value, mapping: rows.filter((_, j) => j !== i) })}
              >
                ×
              </button>
            </div>
          ))}
          <button type="button" className="btn small" onClick={() => onChange({ ...value, mapping: [...rows, { from: '', to: '' }] })}>
            Add field mapping
          </button>
        </>
      )}
    </fieldset>
  );
}
