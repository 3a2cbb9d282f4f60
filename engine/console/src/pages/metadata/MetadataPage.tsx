/**
 * Metadata: export and import (`ExportImport.tsx`), reload (`ReloadMetadata.tsx`),
 * the inconsistent objects with their reasons and a drop button
 * (`InconsistentObjects.tsx`), the resource version, the API limits
 * (`ApiLimits.tsx`), and the introspection options and insecure TLS allow-list
 * (`Security.tsx`). The sections share one status line.
 */
import { Status, useAction } from '../../components.tsx';
import { useMetadata } from '../../metadata-state.tsx';
import { ApiLimits } from './ApiLimits.tsx';
import { ExportImport } from './ExportImport.tsx';
import { InconsistentObjects } from './InconsistentObjects.tsx';
import { ReloadMetadata } from './ReloadMetadata.tsx';
import { IntrospectionOptions, TlsAllowlist } from './Security.tsx';

export function MetadataPage() {
  // The inconsistent objects are the shared state's, also read on each page change (the header's count).
  const { metadata, resourceVersion, refresh, inconsistent } = useMetadata();
  const [status, run] = useAction();
  return (
    <div className="padded">
      <h1>Metadata</h1>
      <p>
        Resource version: <strong aria-label="Resource version">{resourceVersion ?? '…'}</strong>
        {metadata !== null && <span className="muted"> · metadata format version {metadata.version}</span>}
      </p>
      <Status value={status} />
      <ExportImport run={run} after={refresh} />
      <ReloadMetadata run={run} after={refresh} />
      <InconsistentObjects inconsistent={inconsistent} run={run} after={refresh} />
      <h2>API limits</h2>
      {/* Read from the metadata once it is there; after a save the form keeps what was typed. */}
      <ApiLimits key={metadata === null ? 'loading' : 'loaded'} />
      <h2>Introspection</h2>
      <IntrospectionOptions key={metadata === null ? 'loading' : 'loaded'} />
      <h2>Insecure TLS allow-list</h2>
      <TlsAllowlist />
    </div>
  );
}
