/** The form that adds or edits one relationship of an action's output type: name, type, source, table, and each field's column. */
import { useEffect, useState } from 'react';
import { introspect, type DbInfo } from '../../introspect.ts';
import { tableKey, useMetadata } from '../../metadata-state.tsx';
import { qualifiedName, wireTable } from '../../source-kinds.ts';
import type { ObjectRelationship } from './ActionRelationships.tsx';

export function ActionRelationshipForm({
  fields,
  existing,
  onSave,
  onCancel,
}: {
  fields: readonly string[];
  existing: ObjectRelationship | null;
  onSave: (r: ObjectRelationship) => Promise<void>;
  onCancel: () => void;
}) {
  const { metadata } = useMetadata();
  const sources = metadata?.sources ?? [];
  const [name, setName] = useState(existing?.name ?? '');
  const [type, setType] = useState<'object' | 'array'>(existing?.type ?? 'object');
  const [source, setSource] = useState(existing?.source ?? sources[0]?.name ?? 'default');
  const kind = sources.find((s) => s.name === source)?.kind ?? 'postgres';
  const tracked = sources.find((s) => s.name === source)?.tables ?? [];
  const initialTable = existing !== null ? qualifiedName(kind, existing.remote_table) : null;
  const [table, setTable] = useState(initialTable !== null ? tableKey(initialTable) : tracked[0] !== undefined ? tableKey(tracked[0].table) : '');
  const [mapping, setMapping] = useState<Record<string, string>>({ ...(existing?.field_mapping ?? {}) });
  const [db, setDb] = useState<DbInfo | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    introspect(source, kind).then(setDb, () => setDb(null));
  }, [source, kind]);
  const columns = db?.tables.find((t) => `${t.schema}.${t.name}` === table)?.columns.map((c) => c.name) ?? [];
  const what = existing === null ? 'New relationship' : `Edit relationship ${existing.name}`;
  return (
    <form
      aria-label={what}
      onSubmit={(e) => {
        e.preventDefault();
        const entry = tracked.find((t) => tableKey(t.table) === table);
        const fieldMapping = Object.fromEntries(Object.entries(mapping).filter(([, c]) => c !== ''));
        if (name.trim() === '') return setProblem('The relationship needs a name');
        if (entry === undefined) return setProblem('Choose a tracked table');
        if (Object.keys(fieldMapping).length === 0) return setProblem('Map at least one field to a column');
        setProblem(null);
        void onSave({ name: name.trim(), type, source, remote_table: wireTable(kind, entry.table), field_mapping: fieldMapping });
      }}
    >
      <h3>{what}</h3>
      <div className="row">
        <label htmlFor="action-rel-name">Relationship name</label>
        <input id="action-rel-name" value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="action-rel-type">Type</label>
        <select id="action-rel-type" value={type} onChange={(e) => setType(e.target.value as 'object' | 'array')}>
          <option value="object">object (one row)</option>
          <option value="array">array (many rows)</option>
        </select>
      </div>
      <div className="row">
        <label htmlFor="action-rel-source">Source</label>
        <select
          id="action-rel-source"
          value={source}
          onChange={(e) => {
            setSource(e.target.value);
            const first = sources.find((s) => s.name === e.target.value)?.tables[0];
            setTable(first !== undefined ? tableKey(first.table) : '');
            setMapping({});
          }}
        >
          {sources.map((s) => (
            <option key={s.name} value={s.name}>
              {s.name}
            </option>
          ))}
        </select>
        <label htmlFor="action-rel-table">Table</label>
        <select
          id="action-rel-table"
          value={table}
          onChange={(e) => {
            setTable(e.target.value);
            setMapping({});
          }}
        >
          {tracked.map((t) => (
            <option key={tableKey(t.table)} value={tableKey(t.table)}>
              {tableKey(t.table)}
            </option>
          ))}
        </select>
      </div>
      <fieldset>
        <legend>Field mapping</legend>
        <div className="settings-grid">
          {fields.map((f) => (
            <div className="field" key={f}>
              <label htmlFor={`action-rel-map-${f}`}>{f} →</label>
              <select
                id={`action-rel-map-${f}`}
                aria-label={`Column for ${f}`}
                value={mapping[f] ?? ''}
                onChange={(e) => setMapping({ ...mapping, [f]: e.target.value })}
              >
                <option value="">(not mapped)</option>
                {columns.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </div>
          ))}
        </div>
      </fieldset>
      {problem !== null && (
        <p role="alert" className="error">
          {problem}
        </p>
      )}
      <div className="row">
        <button type="submit" className="btn primary">
          {existing === null ? 'Add relationship' : 'Save relationship'}
        </button>
        {existing !== null && (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
