/** The whole allow-list: each entry with its scope, removable. */
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { useMetadata, type AllowlistEntry } from '../../metadata-state.tsx';
import { DataTable } from '../../lists.tsx';
import { link } from './collection-links.ts';

export function Allowlist({ entries }: { entries: readonly AllowlistEntry[] }) {
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
