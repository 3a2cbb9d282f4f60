/** Metadata page: export (a JSON download) and import (a file → replace_metadata). */
import { useRef } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import type { useAction } from '../../components.tsx';

export function ExportImport({ run, after }: { run: ReturnType<typeof useAction>[1]; after: () => Promise<void> }) {
  const fileRef = useRef<HTMLInputElement>(null);
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
    <>
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
    </>
  );
}
