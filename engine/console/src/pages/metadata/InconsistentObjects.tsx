/** Metadata page: the inconsistent objects with their reasons, and a button that drops them. */
import { metadata as callMetadata } from '../../api.ts';
import type { useAction } from '../../components.tsx';
import type { InconsistentObject } from '../../inconsistency.ts';
import { DataTable } from '../../lists.tsx';

export function InconsistentObjects({
  inconsistent,
  run,
  after,
}: {
  inconsistent: readonly InconsistentObject[] | null;
  run: ReturnType<typeof useAction>[1];
  after: () => Promise<void>;
}) {
  return (
    <>
      <h2>Inconsistent objects</h2>
      {inconsistent === null ? null : inconsistent.length === 0 ? (
        <p className="ok">The metadata is consistent.</p>
      ) : (
        <>
          <DataTable
            label="Inconsistent objects"
            rows={inconsistent}
            rowKey={(_, i) => i}
            columns={[
              ['Type', (o) => o.type],
              ['Name', (o) => o.name ?? ''],
              ['Reason', (o) => o.reason],
              ['Definition', (o) => <code>{JSON.stringify(o.definition)}</code>],
            ]}
          />
          <p>
            <button
              type="button"
              className="btn danger"
              onClick={() =>
                void run('Dropping the inconsistent objects…', 'Dropped the inconsistent objects', async () => {
                  await callMetadata('drop_inconsistent_metadata');
                  await after();
                })
              }
            >
              Drop inconsistent objects
            </button>
          </p>
        </>
      )}
    </>
  );
}
