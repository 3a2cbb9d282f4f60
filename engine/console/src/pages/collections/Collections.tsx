/**
 * Query collections, the allow-list and REST endpoints: collections (create,
 * drop) and their queries (add, remove), a collection's place in the
 * allow-list (add with a global or per-role scope, change the scope, remove),
 * and REST endpoints (create from a collection's query, delete, and a try-it
 * call of `/api/rest/<url>` with the URL's parameters filled in).
 */
import { useMetadata } from '../../metadata-state.tsx';
import { NavList } from '../../lists.tsx';
import { Allowlist } from './Allowlist.tsx';
import { Collection } from './Collection.tsx';
import { NewCollection } from './NewCollection.tsx';
import { RestEndpoints } from './RestEndpoints.tsx';
import { link } from './collection-links.ts';

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
