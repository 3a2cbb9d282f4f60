/**
 * Metadata: export (a JSON download), import (a file → replace_metadata),
 * reload, the inconsistent objects with their reasons and a drop button, the
 * resource version, and the API limits (`ApiLimits.tsx`).
 */
import { useRef, useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { DataTable } from '../../lists.tsx';
import { useMetadata } from '../../metadata-state.tsx';
import { ApiLimits } from './ApiLimits.tsx';

export function MetadataPage() {
  // The inconsistent objects are the shared state's, also read on each page change (the header's count).
  const { metadata, resourceVersion, refresh, inconsistent } = useMetadata();
  const [status, run] = useAction();
  const [reloadSources, setReloadSources] = useState(true);
  const fileRef = useRef<HTMLInputElement>(null);
  const after = refresh;
  const download = () =>
    void run('Exporting…', 'Exported the metadata', async () => {
      const r = await callMetadata<{ resource_version: number; metadata: unknown }>('export_metadata', {}, { version: 2 });
      const url = URL.createObjectURL(new Blob([JSON.stringify(r.metadata, null, 2)], { type: 'application/json' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `engine-metadata-v${r.resource_version}.json`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
  const importFile = (file: File) =>
    void run(`Importing ${file.name}…`, `Imported ${file.name}`, async () => {
      const text = await file.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new Error(`${file.name} is not JSON`);
      }
      await callMetadata('replace_metadata', { metadata: parsed, allow_inconsistent_metadata: false }, { version: 2 });
      await after();
    });
  return (
    <div className="padded">
      <h1>Metadata</h1>
      <p>
        Resource version: <strong aria-label="Resource version">{resourceVersion ?? '…'}</strong>
        {metadata !== null && <span className="muted"> · metadata format version {metadata.version}</span>}
      </p>
      <Status value={status} />
      <h2>Export and import</h2>
      <div className="row">
        <button type="button" className="btn" onClick={download}>
          Export metadata
        </button>
        <label className="btn" htmlFor="metadata-import">
          Import metadata…
        </label>
        <input
          id="metadata-import"
          ref={fileRef}
          type="file"
          accept="application/json,.json"
          className="visually-hidden"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f !== undefined) importFile(f);
            if (fileRef.current !== null) fileRef.current.value = '';
          }}
        />
        <span className="muted">Import replaces all metadata (replace_metadata).</span>
      </div>
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
      <h2>API limits</h2>
      {/* Read from the metadata once it is there; after a save the form keeps what was typed. */}
      <ApiLimits key={metadata === null ? 'loading' : 'loaded'} />
    </div>
  );
}
