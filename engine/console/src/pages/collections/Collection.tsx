/** One query collection: its queries (add, remove), its allow-list entry and scope, and its drop. */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { knownRoles, useMetadata, type AllowlistEntry, type QueryCollectionEntry } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { ConfirmButton, DataTable } from '../../lists.tsx';
import { ScopeFields, scopeOf } from './ScopeFields.tsx';

export function Collection({ collection, allow }: { collection: QueryCollectionEntry; allow: AllowlistEntry | undefined }) {
  const { metadata, refresh } = useMetadata();
  const [status, run] = useAction();
  const [queryName, setQueryName] = useState('');
  const [query, setQuery] = useState('');
  const [global, setGlobal] = useState(allow?.scope?.global ?? true);
  const [roles, setRoles] = useState((allow?.scope?.roles ?? []).join(', '));
  const [confirmDrop, setConfirmDrop] = useState(false);
  const name = collection.name;
  const act = (busy: string, ok: string, f: () => Promise<unknown>) =>
    void run(busy, ok, async () => {
      await f();
      await refresh();
    });
  const usedBy = (metadata?.rest_endpoints ?? []).filter((e) => e.definition.query.collection_name === name).map((e) => e.name);
  return (
    <section aria-labelledby="qc-heading">
      <h1 id="qc-heading">Query collection {name}</h1>
      {collection.comment !== undefined && collection.comment !== null && <p className="muted">{collection.comment}</p>}
      <Status value={status} />
      <h2>Queries</h2>
      <DataTable
        label={`Queries of ${name}`}
        empty="No queries in this collection."
        rows={collection.definition.queries}
        rowKey={(q) => q.name}
        rowHeader={['Name', (q) => q.name]}
        columns={[
          ['Query', (q) => <pre className="query-text">{q.query}</pre>],
          [
            'Remove',
            (q) => (
              <button
                type="button"
                className="btn small danger"
                aria-label={`Remove query ${q.name}`}
                onClick={() =>
                  act('Removing…', `Removed query ${q.name} from ${name}`, () =>
                    callMetadata('drop_query_from_collection', { collection_name: name, query_name: q.name }),
                  )
                }
              >
                Remove
              </button>
            ),
          ],
        ]}
      />
      <form
        className="editor"
        aria-label={`Add a query to ${name}`}
        onSubmit={(e) => {
          e.preventDefault();
          act('Adding…', `Added query ${queryName.trim()} to ${name}`, async () => {
            await callMetadata('add_query_to_collection', { collection_name: name, query_name: queryName.trim(), query });
            setQueryName('');
            setQuery('');
          });
        }}
      >
        <h2>Add a query</h2>
        <div className="field">
          <label htmlFor="qc-query-name">Query name</label>
          <input id="qc-query-name" value={queryName} onChange={(e) => setQueryName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="qc-query">Query (GraphQL)</label>
          <textarea id="qc-query" className="wide" rows={5} spellCheck={false} value={query} onChange={(e) => setQuery(e.target.value)} />
        </div>
        <button type="submit" className="btn">
          Add query
        </button>
      </form>
      <h2>Allow-list</h2>
      <p>
        {allow === undefined
          ? 'This collection is not in the allow-list.'
          : allow.scope === undefined || allow.scope.global
            ? 'In the allow-list for every role.'
            : `In the allow-list for the roles ${allow.scope.roles?.join(', ') ?? ''}.`}
      </p>
      <ScopeFields
        global={global}
        roles={roles}
        onChange={(g, r) => {
          setGlobal(g);
          setRoles(r);
        }}
      />
      {knownRoles(metadata).length > 0 && <p className="muted">Roles with permissions: {knownRoles(metadata).join(', ')}</p>}
      <div className="row">
        {allow === undefined ? (
          <button
            type="button"
            className="btn"
            onClick={() =>
              act('Adding…', `Added ${name} to the allow-list`, () =>
                callMetadata('add_collection_to_allowlist', { collection: name, scope: scopeOf(global, roles) }),
              )
            }
          >
            Add to allow-list
          </button>
        ) : (
          <>
            <button
              type="button"
              className="btn"
              onClick={() =>
                act('Saving…', `Changed the allow-list scope of ${name}`, () =>
                  callMetadata('update_scope_of_collection_in_allowlist', { collection: name, scope: scopeOf(global, roles) }),
                )
              }
            >
              Change scope
            </button>
            <button
              type="button"
              className="btn danger"
              onClick={() =>
                act('Removing…', `Removed ${name} from the allow-list`, () => callMetadata('drop_collection_from_allowlist', { collection: name }))
              }
            >
              Remove from allow-list
            </button>
          </>
        )}
      </div>
      <h2>Drop</h2>
      {usedBy.length > 0 && <p className="muted">Used by the REST endpoints {usedBy.join(', ')}: dropping the collection drops them too.</p>}
      <div className="row">
        <ConfirmButton
          confirming={confirmDrop}
          setConfirming={setConfirmDrop}
          ask="Drop collection"
          confirm={`Confirm drop of collection ${name}`}
          onConfirm={() =>
            void run('Dropping…', '', async () => {
              await callMetadata('drop_query_collection', { collection: name, cascade: true });
              await refresh();
              navigate('collections', { view: 'new' });
            })
          }
        />
      </div>
    </section>
  );
}
