/**
 * Data: sources and what their databases hold (tracked and untracked tables,
 * views and functions, with track / track all), relationships suggested from
 * foreign keys, a row grid per table (sort, filter, pages; insert, edit,
 * delete through the admin's GraphQL API) and a SQL editor (`run_sql`).
 */
import { useCallback, useEffect, useState } from 'react';
import { messageOf } from '../../api.ts';
import { introspect, type DbInfo } from '../../introspect.ts';
import { tableKey, useMetadata } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { Sources } from '../sources/Sources.tsx';
import { FunctionView } from './FunctionView.tsx';
import { functionLink } from './FunctionsOverview.tsx';
import { functionKey, trackedFunctions } from './functions.ts';
import { dataLink } from './data-link.ts';
import { SchemaOverview } from './SchemaOverview.tsx';
import { SqlEditor } from './SqlEditor.tsx';
import { TableView } from './TableView.tsx';
import { NavList, SourcePicker } from '../../lists.tsx';
import { onTable } from '../../inconsistency.ts';

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
            { key: 'Schema overview', href: dataLink({ source }), current: view === 'schema' },
            { key: 'SQL editor', href: dataLink({ source, view: 'sql' }), current: view === 'sql' },
            { key: 'Manage sources', href: dataLink({ source, view: 'sources' }), current: view === 'sources' },
          ]}
        />
        <h2>Tracked tables</h2>
        <NavList
          label="Tracked tables"
          items={(sourceEntry?.tables ?? []).map((t) => ({
            key: tableKey(t.table),
            href: dataLink({ source, table: tableKey(t.table) }),
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
