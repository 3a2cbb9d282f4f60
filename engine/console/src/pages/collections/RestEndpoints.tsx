/** REST endpoints: the list (with a try-it panel each), create from a collection's query, delete. */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { useMetadata, type QueryCollectionEntry, type RestEndpointEntry } from '../../metadata-state.tsx';
import { DataTable } from '../../lists.tsx';
import { TryIt } from './TryIt.tsx';
import { METHODS } from './collection-links.ts';

export function RestEndpoints({ endpoints, collections }: { endpoints: readonly RestEndpointEntry[]; collections: readonly QueryCollectionEntry[] }) {
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
