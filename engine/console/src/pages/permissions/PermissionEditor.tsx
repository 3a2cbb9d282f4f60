/**
 * The editor of one role's permission for one operation on a table: row
 * filter and check, columns, limit, aggregations, column presets,
 * backend-only; saved as one `bulk` of drop + create.
 */
import { useCallback, useState } from 'react';
import { metadata as callMetadata, messageOf } from '../../api.ts';
import { Status, useAction, wholeNumber } from '../../components.tsx';
import { valueOf, type DbTable } from '../../introspect.ts';
import { operationPrefix } from '../../source-kinds.ts';
import { tableKey, type TableEntry } from '../../metadata-state.tsx';
import { reasons, type InconsistencyTarget } from '../../inconsistency.ts';
import { FilterEditor } from './FilterEditor.tsx';
import type { RelationshipTarget } from './relationship-targets.ts';
import { permissionOf, type Operation } from './operations.ts';

interface Preset {
  column: string;
  value: string;
}

export function PermissionEditor({
  source,
  kind,
  entry,
  dbTable,
  tables,
  relationships,
  role,
  op,
  problems,
  onSaved,
  onClose,
}: {
  source: string;
  kind: string;
  entry: TableEntry;
  dbTable: DbTable;
  tables: readonly DbTable[];
  relationships: ReadonlyMap<string, readonly RelationshipTarget[]>;
  role: string;
  op: Operation;
  problems: readonly InconsistencyTarget[];
  onSaved: () => Promise<void>;
  onClose: () => void;
}) {
  const key = tableKey(entry.table);
  const existing = permissionOf(entry, role, op)?.permission as
    | {
        filter?: unknown;
        check?: unknown;
        columns?: string[] | '*';
        limit?: number;
        allow_aggregations?: boolean;
        set?: Record<string, unknown>;
        backend_only?: boolean;
      }
    | undefined;
  const allColumns = dbTable.columns.map((c) => c.name);
  const [filter, setFilter] = useState(JSON.stringify(existing?.filter ?? {}));
  const [check, setCheck] = useState(JSON.stringify(existing?.check ?? {}));
  // A builder condition whose value is not one of its column's type (FilterEditor): saving is refused with it.
  const [filterProblem, setFilterProblem] = useState<string | null>(null);
  const [checkProblem, setCheckProblem] = useState<string | null>(null);
  const [columns, setColumns] = useState<string[]>(existing?.columns === '*' ? allColumns : (existing?.columns ?? []));
  const [limit, setLimit] = useState(existing?.limit !== undefined ? String(existing.limit) : '');
  const [aggregations, setAggregations] = useState(existing?.allow_aggregations ?? false);
  const [backendOnly, setBackendOnly] = useState(existing?.backend_only ?? false);
  const [presets, setPresets] = useState<Preset[]>(
    Object.entries(existing?.set ?? {}).map(([column, v]) => ({ column, value: typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v) })),
  );
  const [status, run] = useAction();
  const hasFilter = op !== 'insert';
  const hasCheck = op === 'insert' || op === 'update';
  const hasColumns = op !== 'delete';
  const hasPresets = op === 'insert' || op === 'update';

  const build = useCallback((): Record<string, unknown> => {
    const parse = (text: string, what: string): unknown => {
      try {
        return JSON.parse(text === '' ? '{}' : text) as unknown;
      } catch {
        throw new Error(`The ${what} is not JSON`);
      }
    };
    const p: Record<string, unknown> = {};
    if (hasColumns) p['columns'] = columns;
    if (hasFilter && filterProblem !== null) throw new Error(`Row filter, ${filterProblem}`);
    if (hasCheck && checkProblem !== null) throw new Error(`${op === 'insert' ? 'Row check' : 'Check after update'}, ${checkProblem}`);
    if (hasFilter) p['filter'] = parse(filter, 'row filter');
    if (hasCheck) {
      const c = parse(check, 'check');
      if (op === 'insert' || JSON.stringify(c) !== '{}') p['check'] = c;
    }
    if (op === 'select') {
      if (limit.trim() !== '') p['limit'] = wholeNumber(limit, 'The limit', 0);
      p['allow_aggregations'] = aggregations;
    }
    if (hasPresets && presets.length > 0) {
      p['set'] = Object.fromEntries(
        presets
          .map((x, i) => ({ ...x, i }))
          .filter((x) => x.column !== '')
          .map(({ i, ...x }) => {
            if (/^x-engine-/i.test(x.value)) return [x.column, x.value];
            try {
              return [
                x.column,
                valueOf(
                  dbTable.columns.find((c) => c.name === x.column),
                  x.value,
                ),
              ];
            } catch (e) {
              throw new Error(`Column preset ${i + 1}: ${messageOf(e)}`);
            }
          }),
      );
    }
    if (op !== 'select') p['backend_only'] = backendOnly;
    return p;
  }, [columns, filter, check, filterProblem, checkProblem, limit, aggregations, backendOnly, presets]);

  const save = () =>
    void run('Saving…', `Saved ${op} permission of ${role} on ${key}`, async () => {
      const permission = build();
      const calls: unknown[] = [];
      if (existing !== undefined) calls.push({ type: `${operationPrefix(kind)}_drop_${op}_permission`, args: { source, table: entry.table, role } });
      calls.push({ type: `${operationPrefix(kind)}_create_${op}_permission`, args: { source, table: entry.table, role, permission } });
      await callMetadata('bulk', calls);
      await onSaved();
    });
  const remove = () =>
    void run('Deleting…', `Deleted ${op} permission of ${role} on ${key}`, async () => {
      await callMetadata(`${operationPrefix(kind)}_drop_${op}_permission`, { source, table: entry.table, role });
      await onSaved();
    });

  return (
    <section className="editor" aria-label={`Edit ${op} permission of ${role} on ${key}`}>
      <h2>
        {op} permission of <em>{role}</em> on {key}
      </h2>
      {problems.length > 0 && (
        <p className="error" role="note" aria-label="Why this permission is inconsistent">
          The engine finds this permission inconsistent, so it is not in the GraphQL schema: {reasons(problems)}. Fix it and save, or drop it on the{' '}
          <a href="#/metadata">Metadata page</a>.
        </p>
      )}
      {hasFilter && (
        <FilterEditor
          id="perm-filter"
          label="Row filter"
          value={filter}
          onChange={(json, problem) => {
            setFilter(json);
            setFilterProblem(problem);
          }}
          columns={dbTable.columns}
          table={key}
          kind={kind}
          tables={tables}
          relationships={relationships}
        />
      )}
      {hasCheck && (
        <FilterEditor
          id="perm-check"
          label={op === 'insert' ? 'Row check' : 'Check after update'}
          value={check}
          onChange={(json, problem) => {
            setCheck(json);
            setCheckProblem(problem);
          }}
          columns={dbTable.columns}
          table={key}
          kind={kind}
          tables={tables}
          relationships={relationships}
        />
      )}
      {hasColumns && (
        <fieldset>
          <legend>Columns</legend>
          <div className="row">
            <button type="button" className="btn small" onClick={() => setColumns(columns.length === allColumns.length ? [] : allColumns)}>
              {columns.length === allColumns.length ? 'None' : 'All columns'}
            </button>
          </div>
          <div className="columns-list">
            {allColumns.map((c) => (
              <label key={c}>
                <input
                  type="checkbox"
                  checked={columns.includes(c)}
                  onChange={(e) => setColumns(e.target.checked ? allColumns.filter((x) => x === c || columns.includes(x)) : columns.filter((x) => x !== c))}
                />{' '}
                {c}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {op === 'select' && (
        <fieldset>
          <legend>Rows and aggregations</legend>
          <div className="row">
            <label htmlFor="perm-limit">Limit</label>
            <input id="perm-limit" inputMode="numeric" value={limit} placeholder="no limit" onChange={(e) => setLimit(e.target.value)} />
            <label>
              <input type="checkbox" checked={aggregations} onChange={(e) => setAggregations(e.target.checked)} /> Allow aggregation queries
            </label>
          </div>
        </fieldset>
      )}
      {hasPresets && (
        <fieldset>
          <legend>Column presets</legend>
          {presets.map((p, i) => (
            <div className="row" key={i}>
              <select
                aria-label={`Preset ${i + 1} column`}
                value={p.column}
                onChange={(e) => setPresets(presets.map((x, j) => (j === i ? { ...x, column: e.target.value } : x)))}
              >
                {allColumns.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
              <input
                aria-label={`Preset ${i + 1} value`}
                value={p.value}
                placeholder="value or X-Engine-User-Id"
                onChange={(e) => setPresets(presets.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
              />
              <button type="button" className="btn small" aria-label={`Remove preset ${i + 1}`} onClick={() => setPresets(presets.filter((_, j) => j !== i))}>
                ×
              </button>
            </div>
          ))}
          <button type="button" className="btn small" onClick={() => setPresets([...presets, { column: allColumns[0] ?? '', value: '' }])}>
            Add preset
          </button>
        </fieldset>
      )}
      {op !== 'select' && (
        <label className="row">
          <input type="checkbox" checked={backendOnly} onChange={(e) => setBackendOnly(e.target.checked)} /> Backend only (only requests with{' '}
          <code>x-engine-use-backend-only-permissions: true</code> and the admin secret)
        </label>
      )}
      <Status value={status} />
      <div className="row">
        <button type="button" className="btn primary" onClick={save}>
          Save permission
        </button>
        {existing !== undefined && (
          <button type="button" className="btn danger" onClick={remove}>
            Delete permission
          </button>
        )}
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
