/**
 * Permissions: per tracked table, the role × operation matrix (select,
 * insert, update, delete) and an editor for each cell — row filter (builder
 * and JSON), columns, limit, aggregations, check, column presets,
 * backend-only — saved as one `bulk` (drop the old, create the new: all or
 * nothing). Below, the inherited roles (add, modify, drop).
 */
import { useCallback, useEffect, useState } from 'react';
import { metadata as callMetadata, messageOf } from '../../api.ts';
import { Status, useAction, wholeNumber } from '../../components.tsx';
import { introspect, valueOf, type DbInfo, type DbTable } from '../../introspect.ts';
import { operationPrefix } from '../../source-kinds.ts';
import { knownRoles, tableKey, useMetadata, type PermissionEntry, type SourceEntry, type TableEntry } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { FilterEditor } from './FilterEditor.tsx';
import { relationshipTargets, type RelationshipTarget } from './relationship-targets.ts';
import { NavList, NewRoleForm, SourcePicker } from '../../lists.tsx';
import { onTable, reasons, type InconsistencyTarget } from '../../inconsistency.ts';

const OPERATIONS = ['select', 'insert', 'update', 'delete'] as const;
type Operation = (typeof OPERATIONS)[number];

function permissionOf(entry: TableEntry, role: string, op: Operation): PermissionEntry | undefined {
  return entry[`${op}_permissions`]?.find((p) => p.role === role);
}

/** How much a permission allows, for the matrix: all rows and columns, or less. */
function summary(p: PermissionEntry | undefined, op: Operation, columnCount: number): 'none' | 'full' | 'partial' {
  if (p === undefined) return 'none';
  const perm = p.permission as { filter?: unknown; check?: unknown; columns?: unknown };
  const rows = op === 'insert' ? perm.check : perm.filter;
  const allRows = rows === undefined || JSON.stringify(rows) === '{}';
  const cols = perm.columns;
  const allColumns = op === 'delete' || cols === '*' || (Array.isArray(cols) && cols.length >= columnCount);
  return allRows && allColumns ? 'full' : 'partial';
}

/** A permission the engine found inconsistent (a column dropped outside it, say) shows so, not as what it would allow. */
const MARK = { none: '—', full: '✔ full', partial: '◐ partial', inconsistent: '⚠ inconsistent' } as const;

export function Permissions({ params }: { params: URLSearchParams }) {
  const { metadata, refresh, inconsistencies } = useMetadata();
  const sources = metadata?.sources ?? [];
  const source = params.get('source') ?? sources[0]?.name ?? 'default';
  const sourceEntry = sources.find((s) => s.name === source);
  const table = params.get('table') ?? (sourceEntry?.tables[0] !== undefined ? tableKey(sourceEntry.tables[0].table) : null);
  const [db, setDb] = useState<DbInfo | null>(null);
  const [dbError, setDbError] = useState<string | null>(null);
  const kind = sourceEntry?.kind;
  useEffect(() => {
    if (kind === undefined) return;
    introspect(source, kind).then(setDb, (e: unknown) => setDbError(messageOf(e)));
  }, [source, kind]);
  const entry = sourceEntry?.tables.find((t) => tableKey(t.table) === table);
  const dbTable = db?.tables.find((t) => `${t.schema}.${t.name}` === table);
  // `_exists` may name only a tracked table (the engine refuses others).
  const tracked = (db?.tables ?? []).filter((t) => sourceEntry?.tables.some((e) => tableKey(e.table) === `${t.schema}.${t.name}`) === true);
  const relationships = sourceEntry === undefined || db === null ? new Map() : relationshipTargets(sourceEntry, db.foreignKeys);
  return (
    <div className="split">
      <nav className="sidebar" aria-label="Permission tables">
        <SourcePicker id="perm-source" sources={sources} value={source} onPick={(s) => navigate('permissions', { source: s })} />
        <h2>Tables</h2>
        <NavList
          label="Tables"
          items={(sourceEntry?.tables ?? []).map((t) => ({
            key: tableKey(t.table),
            href: `#/permissions?${new URLSearchParams({ source, table: tableKey(t.table) }).toString()}`,
            current: table === tableKey(t.table),
            problems: onTable(inconsistencies, source, tableKey(t.table)),
          }))}
        />
      </nav>
      <div className="content">
        {dbError !== null && (
          <p role="alert" className="error">
            {dbError}
          </p>
        )}
        {entry !== undefined && dbTable !== undefined && sourceEntry !== undefined && (
          <TablePermissions
            key={tableKey(entry.table)}
            source={sourceEntry}
            entry={entry}
            dbTable={dbTable}
            tables={tracked}
            relationships={relationships}
            onChange={refresh}
          />
        )}
        {sourceEntry !== undefined && sourceEntry.tables.length === 0 && <p>No table is tracked in source {source}: track one on the Data page.</p>}
        <InheritedRoles />
      </div>
    </div>
  );
}

function TablePermissions({
  source,
  entry,
  dbTable,
  tables,
  relationships,
  onChange,
}: {
  source: SourceEntry;
  entry: TableEntry;
  dbTable: DbTable;
  /** The source's tracked tables, for `_exists` conditions, and their relationships' targets. */
  tables: readonly DbTable[];
  relationships: ReadonlyMap<string, readonly RelationshipTarget[]>;
  onChange: () => Promise<void>;
}) {
  const { metadata, inconsistencies } = useMetadata();
  const key = tableKey(entry.table);
  const problems = onTable(inconsistencies, source.name, key);
  const problemsOf = (role: string, op: Operation) => problems.filter((p) => p.operation === op && p.name === role);
  const [extraRoles, setExtraRoles] = useState<string[]>([]);
  const [open, setOpen] = useState<{ role: string; op: Operation } | null>(null);
  const roles = [...new Set([...knownRoles(metadata), ...extraRoles])].filter((r) => r !== 'admin').sort();
  return (
    <section aria-labelledby="perm-heading">
      <h1 id="perm-heading">Permissions of {key}</h1>
      <table className="grid matrix" aria-label={`Permissions of ${key}`}>
        <thead>
          <tr>
            <th scope="col">Role</th>
            {OPERATIONS.map((op) => (
              <th key={op} scope="col">
                {op}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">admin</th>
            {OPERATIONS.map((op) => (
              <td key={op}>{MARK.full}</td>
            ))}
          </tr>
          {roles.map((role) => (
            <tr key={role}>
              <th scope="row">{role}</th>
              {OPERATIONS.map((op) => {
                const bad = problemsOf(role, op);
                const s = bad.length > 0 ? 'inconsistent' : summary(permissionOf(entry, role, op), op, dbTable.columns.length);
                const isOpen = open?.role === role && open.op === op;
                return (
                  <td key={op}>
                    <button
                      type="button"
                      className={`btn small${isOpen ? ' primary' : ''}${bad.length > 0 ? ' cell-inconsistent' : ''}`}
                      title={bad.length > 0 ? reasons(bad) : undefined}
                      aria-label={`${op} permission of ${role}: ${s}`}
                      aria-expanded={isOpen}
                      onClick={() => setOpen(isOpen ? null : { role, op })}
                    >
                      {MARK[s]}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <NewRoleForm id="new-role" onAdd={(r) => setExtraRoles([...extraRoles, r])} />
      {open !== null && (
        <PermissionEditor
          key={`${open.role}/${open.op}`}
          source={source.name}
          kind={source.kind}
          entry={entry}
          dbTable={dbTable}
          tables={tables}
          relationships={relationships}
          role={open.role}
          op={open.op}
          problems={problemsOf(open.role, open.op)}
          onSaved={onChange}
          onClose={() => setOpen(null)}
        />
      )}
    </section>
  );
}

interface Preset {
  column: string;
  value: string;
}

function PermissionEditor({
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

function InheritedRoles() {
  const { metadata, refresh } = useMetadata();
  const [name, setName] = useState('');
  const [set, setSet] = useState<string[]>([]);
  /** The inherited role being modified, or null: the form adds one. */
  const [editing, setEditing] = useState<string | null>(null);
  const [status, run] = useAction();
  const inherited = metadata?.inherited_roles ?? [];
  // The roles it may inherit from: the other roles the metadata knows, and those it already has.
  const candidates = [...new Set([...knownRoles(metadata).filter((r) => !inherited.some((i) => i.role_name === r)), ...set])]
    .filter((r) => r !== editing)
    .sort();
  const reset = () => {
    setEditing(null);
    setName('');
    setSet([]);
  };
  return (
    <section aria-labelledby="inherited-heading">
      <h2 id="inherited-heading">Inherited roles</h2>
      <Status value={status} />
      {inherited.length === 0 ? (
        <p className="muted">No inherited roles.</p>
      ) : (
        <table className="grid" aria-label="Inherited roles">
          <tbody>
            {inherited.map((r) => (
              <tr key={r.role_name}>
                <th scope="row">{r.role_name}</th>
                <td>{r.role_set.join(', ')}</td>
                <td>
                  <button
                    type="button"
                    className="btn small"
                    aria-label={`Modify inherited role ${r.role_name}`}
                    onClick={() => {
                      setEditing(r.role_name);
                      setName(r.role_name);
                      setSet([...r.role_set]);
                    }}
                  >
                    Modify
                  </button>{' '}
                  <button
                    type="button"
                    className="btn small danger"
                    aria-label={`Drop inherited role ${r.role_name}`}
                    onClick={() =>
                      void run('Dropping…', `Dropped inherited role ${r.role_name}`, async () => {
                        await callMetadata('drop_inherited_role', { role_name: r.role_name });
                        if (editing === r.role_name) reset();
                        await refresh();
                      })
                    }
                  >
                    Drop
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        className="editor"
        aria-label={editing === null ? 'Add an inherited role' : `Modify inherited role ${editing}`}
        onSubmit={(e) => {
          e.preventDefault();
          if (editing === null) {
            void run('Adding…', `Added inherited role ${name}`, async () => {
              await callMetadata('add_inherited_role', { role_name: name.trim(), role_set: set });
              reset();
              await refresh();
            });
            return;
          }
          // v2 has no update: drop and add again in one bulk, so a refused set leaves the old one.
          const role = editing;
          void run('Saving…', `Saved inherited role ${role}`, async () => {
            await callMetadata('bulk', [
              { type: 'drop_inherited_role', args: { role_name: role } },
              { type: 'add_inherited_role', args: { role_name: role, role_set: set } },
            ]);
            reset();
            await refresh();
          });
        }}
      >
        {editing === null && (
          <div className="field">
            <label htmlFor="inherited-name">Inherited role name</label>
            <input id="inherited-name" value={name} onChange={(e) => setName(e.target.value)} />
          </div>
        )}
        <fieldset>
          <legend>Inherits from</legend>
          <div className="columns-list">
            {candidates.map((r) => (
              <label key={r}>
                <input type="checkbox" checked={set.includes(r)} onChange={(e) => setSet(e.target.checked ? [...set, r] : set.filter((x) => x !== r))} /> {r}
              </label>
            ))}
          </div>
        </fieldset>
        <button type="submit" className="btn">
          {editing === null ? 'Add inherited role' : 'Save inherited role'}
        </button>
        {editing !== null && (
          <button type="button" className="btn" onClick={reset}>
            Cancel
          </button>
        )}
      </form>
    </section>
  );
}
