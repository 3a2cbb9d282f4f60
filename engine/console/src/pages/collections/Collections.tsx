/**
 * Query collections, the allow-list and REST endpoints: collections (create,
 * drop) and their queries (add, remove), a collection's place in the
 * allow-list (add with a global or per-role scope, change the scope, remove),
 * and REST endpoints (create from a collection's query, delete, and a try-it
 * call of `/api/rest/<url>` with the URL's parameters filled in).
 */
import { useState } from 'react';
import { metadata as callMetadata, restCall, type RestAnswer } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { knownRoles, useMetadata, type AllowlistEntry, type QueryCollectionEntry, type RestEndpointEntry } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { ConfirmButton, DataTable, NavList } from '../../lists.tsx';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function link(params: Record<string, string>): string {
  return `#/collections?${new URLSearchParams(params).toString()}`;
}

export function Collections({ params }: { params: URLSearchParams }) {
  const { metadata } = useMetadata();
  const collections = [...(metadata?.query_collections ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const selected = params.get('collection');
  const view = params.get('view') ?? (selected !== null ? 'collection' : 'rest');
  const found = collections.find((c) => c.name === selected);
  return (
    <div className="split">
      <nav className="sidebar" aria-label="Collections navigation">
        <NavList
          items={[
            { key: 'REST endpoints', href: link({ view: 'rest' }), current: view === 'rest' },
            { key: 'Allow-list', href: link({ view: 'allowlist' }), current: view === 'allowlist' },
            { key: 'New query collection', href: link({ view: 'new' }), current: view === 'new' },
          ]}
        />
        <h2>Query collections</h2>
        <NavList
          label="Query collections"
          empty="No query collections."
          items={collections.map((c) => ({
            key: c.name,
            href: link({ collection: c.name }),
            current: selected === c.name,
            content: (
              <>
                {c.name} <span className="muted">({c.definition.queries.length})</span>
              </>
            ),
          }))}
        />
      </nav>
      <div className="content">
        {metadata === null ? null : view === 'rest' ? (
          <RestEndpoints endpoints={metadata.rest_endpoints ?? []} collections={collections} />
        ) : view === 'allowlist' ? (
          <Allowlist entries={metadata.allowlist ?? []} />
        ) : view === 'new' ? (
          <NewCollection />
        ) : found === undefined ? (
          <p role="alert" className="error">
            There is no query collection {selected}.
          </p>
        ) : (
          <Collection key={found.name} collection={found} allow={(metadata.allowlist ?? []).find((a) => a.collection === found.name)} />
        )}
      </div>
    </div>
  );
}

function NewCollection() {
  const { refresh } = useMetadata();
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const [status, run] = useAction();
  return (
    <form
      aria-label="New query collection"
      onSubmit={(e) => {
        e.preventDefault();
        void run('Creating…', '', async () => {
          const n = name.trim();
          await callMetadata('create_query_collection', {
            name: n,
            definition: { queries: [] },
            ...(comment.trim() !== '' ? { comment: comment.trim() } : {}),
          });
          await refresh();
          navigate('collections', { collection: n });
        });
      }}
    >
      <h1>New query collection</h1>
      <div className="row">
        <label htmlFor="qc-name">Collection name</label>
        <input id="qc-name" value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="qc-comment">Comment</label>
        <input id="qc-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
      </div>
      <Status value={status} />
      <button type="submit" className="btn primary">
        Create collection
      </button>
    </form>
  );
}

/** The scope editor of an allow-list entry: every role, or the roles listed. */
function ScopeFields({ global, roles, onChange }: { global: boolean; roles: string; onChange: (global: boolean, roles: string) => void }) {
  return (
    <div className="row">
      <label>
        <input type="radio" name="allow-scope" checked={global} onChange={() => onChange(true, roles)} /> for every role
      </label>
      <label>
        <input type="radio" name="allow-scope" checked={!global} onChange={() => onChange(false, roles)} /> for these roles only
      </label>
      <label htmlFor="allow-roles" className="visually-hidden">
        Allowed roles (comma-separated)
      </label>
      <input id="allow-roles" placeholder="user, editor" disabled={global} value={roles} onChange={(e) => onChange(global, e.target.value)} />
    </div>
  );
}

function scopeOf(global: boolean, roles: string): { global: boolean; roles?: string[] } {
  if (global) return { global: true };
  const list = [...new Set(roles.split(',').map((r) => r.trim()))].filter((r) => r !== '');
  if (list.length === 0) throw new Error('Name at least one role, or allow the collection for every role');
  return { global: false, roles: list };
}

function Collection({ collection, allow }: { collection: QueryCollectionEntry; allow: AllowlistEntry | undefined }) {
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

function Allowlist({ entries }: { entries: readonly AllowlistEntry[] }) {
  const { refresh } = useMetadata();
  const [status, run] = useAction();
  return (
    <section aria-labelledby="allowlist-heading">
      <h1 id="allowlist-heading">Allow-list</h1>
      <p className="muted">
        With <code>ENGINE_GRAPHQL_ENABLE_ALLOWLIST=true</code>, roles other than admin may run only the queries of these collections. Add a collection from its
        page.
      </p>
      <Status value={status} />
      <DataTable
        label="Allow-listed collections"
        empty="No collection is in the allow-list."
        rows={entries}
        rowKey={(a) => a.collection}
        rowHeader={['Collection', (a) => <a href={link({ collection: a.collection })}>{a.collection}</a>]}
        columns={[
          ['Scope', (a) => (a.scope === undefined || a.scope.global ? 'every role' : `roles ${a.scope.roles?.join(', ') ?? ''}`)],
          [
            'Remove',
            (a) => (
              <button
                type="button"
                className="btn small danger"
                aria-label={`Remove ${a.collection} from the allow-list`}
                onClick={() =>
                  void run('Removing…', `Removed ${a.collection} from the allow-list`, async () => {
                    await callMetadata('drop_collection_from_allowlist', { collection: a.collection });
                    await refresh();
                  })
                }
              >
                Remove
              </button>
            ),
          ],
        ]}
      />
    </section>
  );
}

/** The `:name` parameters of a URL template (`orders/:id` → `id`). */
function urlParams(url: string): string[] {
  return url
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
}

function RestEndpoints({ endpoints, collections }: { endpoints: readonly RestEndpointEntry[]; collections: readonly QueryCollectionEntry[] }) {
  const { refresh } = useMetadata();
  const [status, run] = useAction();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [methods, setMethods] = useState<string[]>(['GET']);
  const [collection, setCollection] = useState(collections[0]?.name ?? '');
  const queries = collections.find((c) => c.name === collection)?.definition.queries ?? [];
  const [queryName, setQueryName] = useState('');
  const [comment, setComment] = useState('');
  const [trying, setTrying] = useState<string | null>(null);
  const sorted = [...endpoints].sort((a, b) => a.name.localeCompare(b.name));
  const tried = sorted.find((e) => e.name === trying);
  return (
    <section aria-labelledby="rest-heading">
      <h1 id="rest-heading">REST endpoints</h1>
      <Status value={status} />
      <DataTable
        label="REST endpoints"
        empty="No REST endpoints."
        rows={sorted}
        rowKey={(e) => e.name}
        rowHeader={['Name', (e) => e.name]}
        columns={[
          ['URL', (e) => <code>/api/rest/{e.url}</code>],
          ['Methods', (e) => e.methods.join(', ')],
          [
            'Query',
            (e) => (
              <>
                {e.definition.query.collection_name} / {e.definition.query.query_name}
              </>
            ),
          ],
          [
            'Actions',
            (e) => (
              <div className="row">
                <button type="button" className="btn small" aria-label={`Try endpoint ${e.name}`} onClick={() => setTrying(e.name)}>
                  Try it
                </button>
                <button
                  type="button"
                  className="btn small danger"
                  aria-label={`Delete endpoint ${e.name}`}
                  onClick={() =>
                    void run('Deleting…', `Deleted REST endpoint ${e.name}`, async () => {
                      await callMetadata('drop_rest_endpoint', { name: e.name });
                      if (trying === e.name) setTrying(null);
                      await refresh();
                    })
                  }
                >
                  Delete
                </button>
              </div>
            ),
          ],
        ]}
      />
      {tried !== undefined && <TryIt key={tried.name} endpoint={tried} />}
      <form
        className="editor"
        aria-label="New REST endpoint"
        onSubmit={(e) => {
          e.preventDefault();
          void run('Creating…', `Created REST endpoint ${name.trim()}`, async () => {
            const q = queryName !== '' ? queryName : (queries[0]?.name ?? '');
            if (collection === '' || q === '') throw new Error('Choose a collection and one of its queries (create them in a query collection first)');
            await callMetadata('create_rest_endpoint', {
              name: name.trim(),
              url: url.trim().replace(/^\/+/, ''),
              methods,
              definition: { query: { collection_name: collection, query_name: q } },
              ...(comment.trim() !== '' ? { comment: comment.trim() } : {}),
            });
            setName('');
            setUrl('');
            await refresh();
          });
        }}
      >
        <h2>New REST endpoint</h2>
        <div className="row">
          <label htmlFor="rest-name">Endpoint name</label>
          <input id="rest-name" value={name} onChange={(e) => setName(e.target.value)} />
          <label htmlFor="rest-url">URL template</label>
          <span className="muted">/api/rest/</span>
          <input id="rest-url" placeholder="orders/:id" value={url} onChange={(e) => setUrl(e.target.value)} />
        </div>
        <fieldset>
          <legend>Methods</legend>
          <div className="columns-list">
            {METHODS.map((m) => (
              <label key={m}>
                <input
                  type="checkbox"
                  checked={methods.includes(m)}
                  onChange={(e) => setMethods(e.target.checked ? [...methods, m] : methods.filter((x) => x !== m))}
                />{' '}
                {m}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="row">
          <label htmlFor="rest-collection">Collection</label>
          <select
            id="rest-collection"
            value={collection}
            onChange={(e) => {
              setCollection(e.target.value);
              setQueryName('');
            }}
          >
            {collections.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
              </option>
            ))}
          </select>
          <label htmlFor="rest-query">Query</label>
          <select id="rest-query" value={queryName !== '' ? queryName : (queries[0]?.name ?? '')} onChange={(e) => setQueryName(e.target.value)}>
            {queries.map((q) => (
              <option key={q.name} value={q.name}>
                {q.name}
              </option>
            ))}
          </select>
          <label htmlFor="rest-comment">Comment</label>
          <input id="rest-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
        </div>
        <button type="submit" className="btn primary">
          Create endpoint
        </button>
      </form>
    </section>
  );
}

function TryIt({ endpoint }: { endpoint: RestEndpointEntry }) {
  const params = urlParams(endpoint.url);
  const [values, setValues] = useState<Record<string, string>>({});
  const [method, setMethod] = useState(endpoint.methods[0] ?? 'GET');
  const [body, setBody] = useState('');
  const [answer, setAnswer] = useState<RestAnswer | null>(null);
  const [status, run] = useAction();
  const path = endpoint.url
    .split('/')
    .map((s) => (s.startsWith(':') ? encodeURIComponent(values[s.slice(1)] ?? '') : s))
    .join('/');
  let pretty = answer?.body ?? '';
  try {
    pretty = JSON.stringify(JSON.parse(pretty), null, 2);
  } catch {
    // Not JSON: shown as it came.
  }
  return (
    <form
      className="editor"
      aria-label={`Try endpoint ${endpoint.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void run('Calling…', '', async () => {
          let parsed: unknown;
          if (method !== 'GET' && body.trim() !== '') {
            try {
              parsed = JSON.parse(body);
            } catch {
              throw new Error('The body is not JSON');
            }
          }
          setAnswer(await restCall(method, path, parsed));
        });
      }}
    >
      <h2>Try {endpoint.name}</h2>
      <div className="row">
        <label htmlFor="try-method">Method</label>
        <select id="try-method" value={method} onChange={(e) => setMethod(e.target.value)}>
          {endpoint.methods.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        {params.map((p) => (
          <span key={p} className="row">
            <label htmlFor={`try-param-${p}`}>{p}</label>
            <input id={`try-param-${p}`} value={values[p] ?? ''} onChange={(e) => setValues({ ...values, [p]: e.target.value })} />
          </span>
        ))}
        <code>/api/rest/{path}</code>
      </div>
      {method !== 'GET' && (
        <div className="field">
          <label htmlFor="try-body">Body (JSON variables)</label>
          <textarea id="try-body" rows={3} spellCheck={false} value={body} onChange={(e) => setBody(e.target.value)} />
        </div>
      )}
      <button type="submit" className="btn primary">
        Send request
      </button>
      <Status value={status} />
      {answer !== null && (
        <>
          <p>
            HTTP status <strong aria-label="Response status">{answer.status}</strong>
          </p>
          <pre aria-label="Response body">{pretty}</pre>
        </>
      )}
    </form>
  );
}
