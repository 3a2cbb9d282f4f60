/**
 * A tracked table's page on the Data page: its tabs (rows, relationships,
 * customization, computed fields) and a link to its permissions.
 */
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import type { DbInfo, DbTable } from '../../introspect.ts';
import { operationPrefix } from '../../source-kinds.ts';
import { tableKey, type SourceEntry, type TableEntry } from '../../metadata-state.tsx';
import { RowsGrid } from './RowsGrid.tsx';
import { TableCustomization } from './TableCustomization.tsx';
import { ComputedFields } from './ComputedFields.tsx';
import { RemoteRelationships } from './RemoteRelationships.tsx';
import { suggestRelationships } from './relationships.ts';
import { SuggestionList } from './SuggestionList.tsx';
import { dataLink } from './data-link.ts';
import { Tabs } from '../../lists.tsx';

export function TableView({
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
        href={(id) => dataLink({ source: source.name, table: key, tab: id })}
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
