/**
 * The Data page's overview of a source: untracked tables and views (track,
 * track all), relationships suggested from foreign keys, tracked tables
 * (untrack) and the source's functions.
 */
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import type { DbInfo, DbTable } from '../../introspect.ts';
import { operationPrefix, wireTable } from '../../source-kinds.ts';
import { tableKey, type SourceEntry } from '../../metadata-state.tsx';
import { FunctionsOverview } from './FunctionsOverview.tsx';
import { suggestRelationships } from './relationships.ts';
import { SuggestionList } from './SuggestionList.tsx';
import { dataLink } from './data-link.ts';

export function SchemaOverview({ source, db, onChange }: { source: SourceEntry; db: DbInfo; onChange: () => Promise<void> }) {
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
                <a href={dataLink({ source: source.name, table: tableKey(t.table) })}>{tableKey(t.table)}</a>
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
