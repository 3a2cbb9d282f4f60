/** Metadata page: reload_metadata, with or without re-reading the sources' schemas. */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import type { useAction } from '../../components.tsx';

export function ReloadMetadata({ run, after }: { run: ReturnType<typeof useAction>[1]; after: () => Promise<void> }) {
  const [reloadSources, setReloadSources] = useState(true);
  return (
    <>
      <h2>Reload</h2>
      <div className="row">
        <label>
          <input type="checkbox" checked={reloadSources} onChange={(e) => setReloadSources(e.target.checked)} /> Reload all sources (re-read their schemas)
        </label>
        <button
          type="button"
          className="btn"
          onClick={() =>
            void run('Reloading…', 'Reloaded the metadata', async () => {
              await callMetadata('reload_metadata', { reload_sources: reloadSources });
              await after();
            })
          }
        >
          Reload metadata
        </button>
      </div>
    </>
  );
}
