/**
 * Source management (on the Data page): the configured sources with how each
 * connects (a connection string shown without its password, or the name of the
 * environment variable), reload one (`reload_metadata` with its name in
 * `reload_sources`), remove one (`pg_drop_source`, cascading to what it
 * tracks once confirmed), configure one (SourceEditor.tsx), and add a PostgreSQL
 * source from a connection string or an environment variable (`pg_add_source`).
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction, wholeNumber } from '../../components.tsx';
import { useMetadata, type SourceEntry } from '../../metadata-state.tsx';
import { ConfirmButton, DataTable } from '../../lists.tsx';
import { SourceEditor } from './SourceEditor.tsx';

/** How a source connects, without secrets: the URL's password is masked. */
export function describeConnection(s: SourceEntry): string {
  // A postgres source's `connection_info.database_url`: a URL or `{from_env}` (engine/backends/postgres/configuration.ts).
  const info = s.configuration?.['connection_info'] as { database_url?: string | { from_env?: string } } | undefined;
  const url = info?.database_url;
  if (url === undefined) return '';
  if (typeof url !== 'string') return `environment variable ${url.from_env ?? ''}`;
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '*****';
    return u.toString();
  } catch {
    return 'connection string';
  }
}

export function Sources({ onChange }: { onChange: () => Promise<void> }) {
  const { metadata, refresh } = useMetadata();
  const [status, run] = useAction();
  const [confirm, setConfirm] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [fromEnv, setFromEnv] = useState(false);
  const [url, setUrl] = useState('');
  const [maxConnections, setMaxConnections] = useState('');
  const sources = metadata?.sources ?? [];
  const editingEntry = sources.find((s) => s.name === editing);
  const after = async () => {
    await refresh();
    await onChange();
  };
  return (
    <section aria-labelledby="sources-heading">
      <h1 id="sources-heading">Sources</h1>
      <Status value={status} />
      <DataTable
        label="Sources"
        rows={sources}
        rowKey={(s) => s.name}
        rowHeader={['Name', (s) => s.name]}
        columns={[
          ['Kind', (s) => s.kind],
          ['Connection', (s) => <code className="wrap-anywhere">{describeConnection(s)}</code>],
          [
            'Tracked',
            (s) => (
              <>
                {s.tables.length} tables, {(s.functions ?? []).length} functions
              </>
            ),
          ],
          [
            'Actions',
            (s) => (
              <div className="row nowrap">
                <button
                  type="button"
                  className="btn small"
                  aria-label={`Configure source ${s.name}`}
                  aria-expanded={editing === s.name}
                  onClick={() => setEditing(editing === s.name ? null : s.name)}
                >
                  Configure
                </button>
                <button
                  type="button"
                  className="btn small"
                  aria-label={`Reload source ${s.name}`}
                  onClick={() =>
                    void run(`Reloading ${s.name}…`, `Reloaded source ${s.name}`, async () => {
                      const r = await callMetadata<{ is_consistent?: boolean; inconsistent_objects?: Array<{ reason: string }> }>('reload_metadata', {
                        reload_sources: [s.name],
                      });
                      await after();
                      if (r.is_consistent === false)
                        throw new Error(`Reloaded, but inconsistent: ${(r.inconsistent_objects ?? []).map((o) => o.reason).join('; ')}`);
                    })
                  }
                >
                  Reload
                </button>
                <ConfirmButton
                  small
                  confirming={confirm === s.name}
                  setConfirming={(asking) => setConfirm(asking ? s.name : null)}
                  ask="Remove"
                  askLabel={`Remove source ${s.name}`}
                  confirm={`Confirm removal of ${s.name}${s.tables.length + (s.functions ?? []).length > 0 ? ' and what it tracks' : ''}`}
                  onConfirm={() =>
                    void run(`Removing ${s.name}…`, `Removed source ${s.name}`, async () => {
                      await callMetadata('pg_drop_source', { name: s.name, cascade: true });
                      setConfirm(null);
                      await after();
                    })
                  }
                />
              </div>
            ),
          ],
        ]}
      />
      {editingEntry !== undefined && <SourceEditor key={editingEntry.name} source={editingEntry} onSaved={after} onClose={() => setEditing(null)} />}
      <form
        className="editor"
        aria-label="Add a PostgreSQL source"
        onSubmit={(e) => {
          e.preventDefault();
          void run(`Adding ${name.trim()}…`, `Added source ${name.trim()}`, async () => {
            if (name.trim() === '') throw new Error('The source needs a name');
            if (url.trim() === '') throw new Error(fromEnv ? 'Name the environment variable' : 'The connection string is required');
            let pool: Record<string, number> | undefined;
            if (maxConnections.trim() !== '') pool = { max_connections: wholeNumber(maxConnections, 'Max connections', 1) };
            await callMetadata('pg_add_source', {
              name: name.trim(),
              configuration: {
                connection_info: { database_url: fromEnv ? { from_env: url.trim() } : url.trim(), ...(pool !== undefined ? { pool_settings: pool } : {}) },
              },
            });
            setName('');
            setUrl('');
            await after();
          });
        }}
      >
        <h2>Add a PostgreSQL source</h2>
        <div className="row">
          <label htmlFor="src-name">Source name</label>
          <input id="src-name" value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="row">
          <label>
            <input type="radio" name="src-connect" checked={!fromEnv} onChange={() => setFromEnv(false)} /> connection string
          </label>
          <label>
            <input type="radio" name="src-connect" checked={fromEnv} onChange={() => setFromEnv(true)} /> environment variable of the engine
          </label>
        </div>
        <div className="row">
          <label htmlFor="src-url">{fromEnv ? 'Environment variable' : 'Connection string'}</label>
          <input
            id="src-url"
            className="wide-input"
            type={fromEnv ? 'text' : 'password'}
            autoComplete="off"
            placeholder={fromEnv ? 'PG_DATABASE_URL' : 'postgres://user:password@host:5432/db'}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
          <label htmlFor="src-max">Max connections</label>
          <input id="src-max" inputMode="numeric" size={4} placeholder="50" value={maxConnections} onChange={(e) => setMaxConnections(e.target.value)} />
        </div>
        <button type="submit" className="btn primary">
          Add source
        </button>
      </form>
    </section>
  );
}
