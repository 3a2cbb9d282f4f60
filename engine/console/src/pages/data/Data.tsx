/**
 * Data: sources and what their databases hold (tracked and untracked tables,
 * views and functions, with track / track all), relationships suggested from
 * foreign keys, a row grid per table (sort, filter, pages; insert, edit,
 * delete through the admin's GraphQL API) and a SQL editor (`run_sql`).
 */
import { useCallback, useEffect, useState } from 'react';
import { metadata as callMetadata, messageOf, runSql, type SqlResult } from '../../api.ts';
import { ResultTable, Status, useAction } from '../../components.tsx';
import { introspect, type DbInfo, type DbTable } from '../../introspect.ts';
import { operationPrefix, wireTable } from '../../source-kinds.ts';
import { tableKey, useMetadata, type SourceEntry, type TableEntry } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { RowsGrid } from './RowsGrid.tsx';
import { Sources } from '../sources/Sources.tsx';
import { TableCustomization } from './TableCustomization.tsx';
import { ComputedFields } from './ComputedFields.tsx';
import { FunctionView } from './FunctionView.tsx';
import { RemoteRelationships } from './RemoteRelationships.tsx';
import { functionLink, FunctionsOverview } from './FunctionsOverview.tsx';
import { functionKey, trackedFunctions } from './functions.ts';
import { suggestRelationships, type Suggestion } from './relationships.ts';
import { NavList, SourcePicker, Tabs } from '../../lists.tsx';
import { onTable } from '../../inconsistency.ts';

function link(params: Record<string, string>): string {
  return `#/data?${new URLSearchParams(params).toString()}`;
}

export function Data({ params }: { params: URLSearchParams }) {
  const { metadata, refresh, inconsistencies } = useMetadata();
  const sources = metadata?.sources ?? [];
  const source = params.get('source') ?? sources[0]?.name ?? 'default';
  const sourceEntry = sources.find((s) => s.name === source);
  const kind = sourceEntry?.kind;
  const table = params.get('table');
  const fn = params.get('function');
  const view = params.get('view') ?? (table !== null ? 'table' : fn !== null ? 'function' : 'schema');
  const [db, setDb] = useState<DbInfo | null>(null);
  const [dbError, setDbError] = useState<string | null>(null);
  const reloadDb = useCallback(async () => {
    // The kind comes with the metadata: until it is known there is nothing to ask.
    if (kind === undefined) return;
    try {
      setDb(await introspect(source, kind));
      setDbError(null);
    } catch (e) {
      setDbError(messageOf(e));
    }
  }, [source, kind]);
  useEffect(() => {
    void reloadDb();
  }, [reloadDb]);
  const afterChange = async () => {
    await Promise.all([refresh(), reloadDb()]);
  };
  const entry = sourceEntry?.tables.find((t) => tableKey(t.table) === table);
  const dbTable = db?.tables.find((t) => `${t.schema}.${t.name}` === table);
  const functions = sourceEntry === undefined ? [] : trackedFunctions(sourceEntry);
  const fnEntry = functions.find((f) => kind !== undefined && functionKey(kind, f) === fn);
  return (
    <div className="split">
      <nav className="sidebar" aria-label="Data navigation">
        <SourcePicker
          id="data-source"
          sources={sources}
          value={source}
          onPick={(s) => navigate('data', { source: s })}
          describe={(s) => `${s.name} (${s.kind})`}
        />
        <NavList
          items={[
            { key: 'Schema overview', href: link({ source }), current: view === 'schema' },
            { key: 'SQL editor', href: link({ source, view: 'sql' }), current: view === 'sql' },
            { key: 'Manage sources', href: link({ source, view: 'sources' }), current: view === 'sources' },
          ]}
        />
        <h2>Tracked tables</h2>
        <NavList
          label="Tracked tables"
          items={(sourceEntry?.tables ?? []).map((t) => ({
            key: tableKey(t.table),
            href: link({ source, table: tableKey(t.table) }),
            current: table === tableKey(t.table),
            problems: onTable(inconsistencies, source, tableKey(t.table)),
          }))}
        />
        {functions.length > 0 && kind !== undefined && (
          <>
            <h2>Tracked functions</h2>
            <NavList
              label="Tracked functions"
              items={functions.map((f) => ({
                key: functionKey(kind, f),
                href: functionLink(source, functionKey(kind, f)),
                current: fn === functionKey(kind, f),
              }))}
            />
          </>
        )}
      </nav>
      <div className="content">
        {view === 'sources' && <Sources onChange={reloadDb} />}
        {dbError !== null && view !== 'sources' && (
          <p role="alert" className="error">
            Could not read the database of source {source}: {dbError}
          </p>
        )}
        {view === 'sql' && <SqlEditor source={source} onDone={afterChange} />}
        {view === 'schema' && sourceEntry !== undefined && db !== null && <SchemaOverview source={sourceEntry} db={db} onChange={afterChange} />}
        {view === 'table' && entry !== undefined && dbTable !== undefined && db !== null && sourceEntry !== undefined && (
          <TableView source={sourceEntry} entry={entry} dbTable={dbTable} db={db} tab={params.get('tab') ?? 'rows'} onChange={afterChange} />
        )}
        {view === 'function' && fnEntry !== undefined && sourceEntry !== undefined && (
          <FunctionView key={fn} source={sourceEntry} fn={fnEntry} onChange={afterChange} />
        )}
        {view === 'function' && metadata !== null && fnEntry === undefined && (
          <p>
            The function {fn} is not tracked in source {source}.
          </p>
        )}
        {view === 'table' && metadata !== null && entry === undefined && (
          <p>
            The table {table} is not tracked in source {source}.
          </p>
        )}
      </div>
    </div>
  );
}

function SchemaOverview({ source, db, onChange }: { source: SourceEntry; db: DbInfo; onChange: () => Promise<void> }) {
  const [status, run] = useAction();
  const tracked = new Set(source.tables.map((t) => tableKey(t.table)));
  const untracked = db.tables.filter((t) => !tracked.has(`${t.schema}.${t.name}`));
  const suggestions = suggestRelationships(db, source);
  const track = (tables: DbTable[]) =>
    run(
      `Tracking ${tables.length === 1 ? `${tables[0]!.schema}.${tables[0]!.name}` : `${tables.length} tables`}…`,
      `Tracked ${tables.map((t) => `${t.schema}.${t.name}`).join(', ')}`,
      async () => {
        const calls = tables.map((t) => ({
          type: `${operationPrefix(source.kind)}_track_table`,
          args: { source: source.name, table: wireTable(source.kind, t) },
        }));
        await (calls.length === 1 ? callMetadata(calls[0]!.type, calls[0]!.args) : callMetadata('bulk', calls));
        await onChange();
      },
    );
  return (
    <section aria-labelledby="schema-heading">
      <h1 id="schema-heading">Source {source.name}</h1>
      <Status value={status} />
      <h2>Untracked tables and views</h2>
      {untracked.length === 0 ? (
        <p className="muted">Every table and view is tracked.</p>
      ) : (
        <>
          <button type="button" className="btn primary" onClick={() => void track(untracked)}>
            Track all
          </button>
          <table className="grid" aria-label="Untracked tables and views">
            <tbody>
              {untracked.map((t) => (
                <tr key={`${t.schema}.${t.name}`}>
                  <td>
                    {t.schema}.{t.name}
                  </td>
                  <td>{t.kind}</td>
                  <td>
                    <button type="button" className="btn small" aria-label={`Track ${t.schema}.${t.name}`} onClick={() => void track([t])}>
                      Track
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h2>Suggested relationships</h2>
      <SuggestionList source={source.name} kind={source.kind} suggestions={suggestions} onChange={onChange} run={run} />
      <h2>Tracked tables and views</h2>
      <table className="grid" aria-label="Tracked tables and views">
        <tbody>
          {source.tables.map((t) => (
            <tr key={tableKey(t.table)}>
              <td>
                <a href={link({ source: source.name, table: tableKey(t.table) })}>{tableKey(t.table)}</a>
              </td>
              <td>
                <button
                  type="button"
                  className="btn small danger"
                  aria-label={`Untrack ${tableKey(t.table)}`}
                  onClick={() =>
                    void run(`Untracking ${tableKey(t.table)}…`, `Untracked ${tableKey(t.table)}`, async () => {
                      await callMetadata(`${operationPrefix(source.kind)}_untrack_table`, { source: source.name, table: t.table, cascade: true });
                      await onChange();
                    })
                  }
                >
                  Untrack
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <FunctionsOverview source={source} db={db} run={run} onChange={onChange} />
    </section>
  );
}

function SuggestionList({
  source,
  kind,
  suggestions,
  onChange,
  run,
}: {
  source: string;
  kind: string;
  suggestions: Suggestion[];
  onChange: () => Promise<void>;
  run: (busy: string, ok: string, action: () => Promise<unknown>) => Promise<boolean>;
}) {
  const [names, setNames] = useState<Record<string, string>>({});
  if (suggestions.length === 0) return <p className="muted">No foreign key between tracked tables lacks a relationship.</p>;
  return (
    <table className="grid" aria-label="Suggested relationships">
      <thead>
        <tr>
          <th scope="col">On table</th>
          <th scope="col">Kind</th>
          <th scope="col">Foreign key</th>
          <th scope="col">Name</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>
        {suggestions.map((s) => {
          const id = `${s.kind}:${tableKey(s.table)}:${JSON.stringify(s.using)}`;
          const name = names[id] ?? s.name;
          return (
            <tr key={id}>
              <td>{tableKey(s.table)}</td>
              <td>{s.kind}</td>
              <td>{s.describe}</td>
              <td>
                <input
                  aria-label={`Name of the ${s.kind} relationship on ${tableKey(s.table)} (${s.describe})`}
                  value={name}
                  onChange={(e) => setNames({ ...names, [id]: e.target.value })}
                />
              </td>
              <td>
                <button
                  type="button"
                  className="btn small primary"
                  aria-label={`Add ${s.kind} relationship ${name} on ${tableKey(s.table)}`}
                  onClick={() =>
                    void run(`Adding ${name}…`, `Added the ${s.kind} relationship ${name} on ${tableKey(s.table)}`, async () => {
                      await callMetadata(`${operationPrefix(kind)}_create_${s.kind}_relationship`, { source, table: s.table, name, using: s.using });
                      await onChange();
                    })
                  }
                >
                  Add
                </button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function TableView({
  source,
  entry,
  dbTable,
  db,
  tab,
  onChange,
}: {
  source: SourceEntry;
  entry: TableEntry;
  dbTable: DbTable;
  db: DbInfo;
  tab: string;
  onChange: () => Promise<void>;
}) {
  const key = tableKey(entry.table);
  const [status, run] = useAction();
  const tabs = [
    { id: 'rows', title: 'Browse rows' },
    { id: 'relationships', title: 'Relationships' },
    { id: 'customization', title: 'Customization' },
    { id: 'computed', title: 'Computed fields' },
  ];
  const suggestions = suggestRelationships(db, source).filter((s) => tableKey(s.table) === key);
  const rels = [
    ...(entry.object_relationships ?? []).map((r) => ({ ...r, kind: 'object' })),
    ...(entry.array_relationships ?? []).map((r) => ({ ...r, kind: 'array' })),
  ];
  return (
    <section aria-labelledby="table-heading">
      <h1 id="table-heading">
        {key} <span className="muted">({dbTable.kind})</span>
      </h1>
      <Tabs
        label="Table sections"
        tabs={tabs.map((t) => [t.id, t.title] as const)}
        current={tab}
        href={(id) => link({ source: source.name, table: key, tab: id })}
      >
        <a href={`#/permissions?${new URLSearchParams({ source: source.name, table: key }).toString()}`}>Permissions</a>
      </Tabs>
      {tab === 'rows' && <RowsGrid key={`${key}:${JSON.stringify(entry.configuration ?? {})}`} kind={source.kind} entry={entry} table={dbTable} />}
      {tab === 'computed' && <ComputedFields key={key} source={source} entry={entry} functions={db.functions} onChange={onChange} />}
      {tab === 'customization' && <TableCustomization key={key} source={source.name} kind={source.kind} entry={entry} dbTable={dbTable} onChange={onChange} />}
      {tab === 'relationships' && (
        <>
          <h2>Relationships</h2>
          <Status value={status} />
          {rels.length === 0 ? (
            <p className="muted">No relationships.</p>
          ) : (
            <table className="grid" aria-label={`Relationships of ${key}`}>
              <tbody>
                {rels.map((r) => (
                  <tr key={r.name}>
                    <td>{r.name}</td>
                    <td>{r.kind}</td>
                    <td>
                      <code>{JSON.stringify(r.using)}</code>
                    </td>
                    <td>
                      <button
                        type="button"
                        className="btn small danger"
                        aria-label={`Drop relationship ${r.name}`}
                        onClick={() =>
                          void run(`Dropping ${r.name}…`, `Dropped ${r.name}`, async () => {
                            await callMetadata(`${operationPrefix(source.kind)}_drop_relationship`, {
                              source: source.name,
                              table: entry.table,
                              relationship: r.name,
                              cascade: true,
                            });
                            await onChange();
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
          <h2>Suggested from foreign keys</h2>
          <SuggestionList source={source.name} kind={source.kind} suggestions={suggestions} onChange={onChange} run={run} />
          <RemoteRelationships key={key} source={source} entry={entry} dbTable={dbTable} onChange={onChange} />
        </>
      )}
    </section>
  );
}

function SqlEditor({ source, onDone }: { source: string; onDone: () => Promise<void> }) {
  const [sql, setSql] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [cascade, setCascade] = useState(false);
  const [result, setResult] = useState<SqlResult | null>(null);
  const [status, run] = useAction();
  const submit = () =>
    void run('Running…', 'Done', async () => {
      setResult(null);
      const r = await runSql(sql, { source, readOnly, cascade });
      setResult(r);
      if (!readOnly) await onDone();
    });
  return (
    <section aria-labelledby="sql-heading">
      <h1 id="sql-heading">SQL on source {source}</h1>
      <div className="field">
        <label htmlFor="sql-text">SQL</label>
        <textarea
          id="sql-text"
          rows={10}
          value={sql}
          spellCheck={false}
          onChange={(e) => setSql(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit();
          }}
        />
      </div>
      <div className="row">
        <label>
          <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> Read only
        </label>
        <label>
          <input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} /> Cascade metadata
        </label>
        <button type="button" className="btn primary" onClick={submit}>
          Run SQL
        </button>
        <span className="muted">Ctrl+Enter runs it too.</span>
      </div>
      <Status value={status} />
      {result !== null && result.result_type === 'TuplesOk' && result.result !== null && <ResultTable rows={result.result} label="SQL result" />}
      {result !== null && result.result_type === 'CommandOk' && <p>Command completed.</p>}
    </section>
  );
}
