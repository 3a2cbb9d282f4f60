/**
 * Permissions: per tracked table, the role × operation matrix (select,
 * insert, update, delete) and an editor for each cell — row filter (builder
 * and JSON), columns, limit, aggregations, check, column presets,
 * backend-only — saved as one `bulk` (drop the old, create the new: all or
 * nothing). Below, the inherited roles (add, modify, drop).
 */
import { useEffect, useState } from 'react';
import { messageOf } from '../../api.ts';
import { introspect, type DbInfo } from '../../introspect.ts';
import { tableKey, useMetadata } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { relationshipTargets } from './relationship-targets.ts';
import { InheritedRoles } from './InheritedRoles.tsx';
import { TablePermissions } from './TablePermissions.tsx';
import { NavList, SourcePicker } from '../../lists.tsx';
import { onTable } from '../../inconsistency.ts';

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
