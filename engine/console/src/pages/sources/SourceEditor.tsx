/**
 * The configuration of an existing source: its connection (a value or an environment variable),
 * SSL settings (postgres), pool settings, isolation level, prepared statements,
 * read replicas and the GraphQL customization (root-field namespace, prefix and suffix; type-name
 * prefix and suffix), the fields its kind has (`configurationFields`), saved with
 * `<prefix>_update_source`. The engine checks the values: a refused one leaves the source as it
 * was and its error is shown.
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import type { SourceEntry } from '../../metadata-state.tsx';
import { configurationFields, operationPrefix } from '../../source-kinds.ts';
import { SSL_MODES, readForm, writeForm, type ConnectionMode, type ReplicaRow, type SourceForm, type SslForm } from './source-config.ts';

export function SourceEditor({ source, onSaved, onClose }: { source: SourceEntry; onSaved: () => Promise<void>; onClose: () => void }) {
  const fields = configurationFields(source.kind);
  const [form, setForm] = useState<SourceForm>(() => readForm(source.kind, source.configuration, source.customization));
  const [status, run] = useAction();
  const set = (patch: Partial<SourceForm>) => setForm((f) => ({ ...f, ...patch }));
  const setNumber = (key: string, value: string) => setForm((f) => ({ ...f, numbers: { ...f.numbers, [key]: value } }));
  const setReplica = (i: number, patch: Partial<ReplicaRow>) =>
    setForm((f) => ({ ...f, replicas: f.replicas.map((r, j) => (j === i ? { ...r, ...patch } : r)) }));
  const id = (what: string) => `src-${source.name}-${what}`;
  // What the source had: back to its mode, its text comes back; parameters are kept unless switched away from.
  const [had] = useState(form);
  const hadParameters = had.connectionMode === 'parameters';
  const setSsl = (patch: Partial<SslForm>) => setForm((f) => ({ ...f, ssl: { ...f.ssl, ...patch } }));
  const connectionName = fields.connectionKey === 'connection_string' ? 'Connection string' : 'Database URL';
  const sslField = (key: keyof Omit<SslForm, 'mode'>, label: string) => (
    <div className="field" key={key}>
      <label htmlFor={id(`ssl-${key}`)}>{label}</label>
      <input
        id={id(`ssl-${key}`)}
        size={18}
        placeholder="ENV_VAR_NAME"
        autoComplete="off"
        value={form.ssl[key]}
        onChange={(e) => setSsl({ [key]: e.target.value })}
      />
    </div>
  );
  const numberField = (key: string, label: string) => (
    <div className="field" key={key}>
      <label htmlFor={id(key)}>{label}</label>
      <input id={id(key)} inputMode="numeric" size={8} value={form.numbers[key] ?? ''} onChange={(e) => setNumber(key, e.target.value)} />
    </div>
  );
  const textField = (key: keyof SourceForm, label: string) => (
    <div className="field">
      <label htmlFor={id(key)}>{label}</label>
      <input id={id(key)} size={14} value={form[key] as string} onChange={(e) => set({ [key]: e.target.value })} />
    </div>
  );
  return (
    <form
      className="editor"
      aria-label={`Configure source ${source.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void run('Saving…', `Saved the configuration of ${source.name}`, async () => {
          const { configuration, customization } = writeForm(source.kind, form, source.configuration, source.customization);
          await callMetadata(`${operationPrefix(source.kind)}_update_source`, { name: source.name, configuration, customization });
          await onSaved();
        });
      }}
    >
      <h2>
        Configure source {source.name} <span className="muted">({source.kind})</span>
      </h2>
      {fields.connectionKey !== null && (
        <fieldset>
          <legend>Connection</legend>
          <div className="row">
            <label htmlFor={id('connection-mode')}>{connectionName} given as</label>
            <select
              id={id('connection-mode')}
              value={form.connectionMode}
              onChange={(e) => {
                const mode = e.target.value as ConnectionMode;
                set({ connectionMode: mode, connection: mode === had.connectionMode ? had.connection : '' });
              }}
            >
              <option value="value">a value</option>
              <option value="env">an environment variable of the engine</option>
              {hadParameters && <option value="parameters">connection parameters (kept as they are)</option>}
            </select>
          </div>
          {form.connectionMode !== 'parameters' && (
            <div className="row">
              <label htmlFor={id('connection')}>{form.connectionMode === 'env' ? `${connectionName} environment variable` : connectionName}</label>
              <input
                id={id('connection')}
                className="wide-input"
                type={form.connectionMode === 'env' ? 'text' : 'password'}
                autoComplete="off"
                placeholder={form.connectionMode === 'env' ? 'PG_DATABASE_URL' : 'postgres://user:password@host:5432/db'}
                value={form.connection}
                onChange={(e) => set({ connection: e.target.value })}
              />
            </div>
          )}
        </fieldset>
      )}
      {fields.ssl && (
        <fieldset>
          <legend>SSL</legend>
          <div className="settings-grid">
            <div className="field">
              <label htmlFor={id('ssl-mode')}>SSL mode</label>
              <select id={id('ssl-mode')} value={form.ssl.mode} onChange={(e) => setSsl({ mode: e.target.value })}>
                <option value="">not set (the URL's own settings)</option>
                {SSL_MODES.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </div>
            {sslField('rootCert', 'Root certificate (environment variable)')}
            {sslField('cert', 'Client certificate (environment variable)')}
            {sslField('key', 'Client key (environment variable)')}
            {sslField('password', 'Client key password (environment variable)')}
          </div>
        </fieldset>
      )}
      {fields.pool.length > 0 && (
        <fieldset>
          <legend>Connection pool</legend>
          <div className="settings-grid">{fields.pool.map((s) => numberField(s.key, s.label))}</div>
        </fieldset>
      )}
      {fields.topLevel.length > 0 && (
        <fieldset>
          <legend>Limits</legend>
          <div className="settings-grid">{fields.topLevel.map((s) => numberField(s.key, s.label))}</div>
        </fieldset>
      )}
      {(fields.isolationLevels.length > 0 || fields.preparedStatements) && (
        <fieldset>
          <legend>Transactions</legend>
          <div className="settings-grid">
            {fields.isolationLevels.length > 0 && (
              <div className="field">
                <label htmlFor={id('isolation')}>Isolation level</label>
                <select id={id('isolation')} value={form.isolationLevel} onChange={(e) => set({ isolationLevel: e.target.value })}>
                  <option value="">default (read-committed)</option>
                  {fields.isolationLevels.map((l) => (
                    <option key={l} value={l}>
                      {l}
                    </option>
                  ))}
                </select>
              </div>
            )}
            {fields.preparedStatements && (
              <div className="field">
                <label htmlFor={id('prepared')}>Prepared statements</label>
                <select
                  id={id('prepared')}
                  value={form.preparedStatements}
                  onChange={(e) => set({ preparedStatements: e.target.value as SourceForm['preparedStatements'] })}
                >
                  <option value="default">default (off)</option>
                  <option value="on">on</option>
                  <option value="off">off</option>
                </select>
              </div>
            )}
          </div>
        </fieldset>
      )}
      {fields.readReplicas && (
        <fieldset>
          <legend>Read replicas</legend>
          {form.replicas.length === 0 && <p className="muted">None: queries and subscriptions go to the source itself.</p>}
          {form.replicas.map((r, i) => (
            <div className="row" key={i}>
              <input
                className="wide-input"
                aria-label={`Read replica ${i + 1} ${r.fromEnv ? 'environment variable' : 'connection'}`}
                type={r.fromEnv ? 'text' : 'password'}
                autoComplete="off"
                placeholder={r.fromEnv ? 'REPLICA_DATABASE_URL' : 'postgres://user:password@replica:5432/db'}
                value={r.connection}
                onChange={(e) => setReplica(i, { connection: e.target.value })}
              />
              <label>
                <input type="checkbox" checked={r.fromEnv} onChange={(e) => setReplica(i, { fromEnv: e.target.checked })} /> from the environment
              </label>
              <input
                aria-label={`Read replica ${i + 1} max connections`}
                inputMode="numeric"
                size={5}
                placeholder="max conn."
                value={r.maxConnections}
                onChange={(e) => setReplica(i, { maxConnections: e.target.value })}
              />
              <button
                type="button"
                className="btn small"
                aria-label={`Remove read replica ${i + 1}`}
                onClick={() => set({ replicas: form.replicas.filter((_, j) => j !== i) })}
              >
                ×
              </button>
            </div>
          ))}
          <button
            type="button"
            className="btn small"
            onClick={() => set({ replicas: [...form.replicas, { connection: '', fromEnv: false, maxConnections: '', original: null }] })}
          >
            Add read replica
          </button>
        </fieldset>
      )}
      <fieldset>
        <legend>GraphQL customization</legend>
        <div className="settings-grid">
          {textField('namespace', 'Root field namespace')}
          {textField('rootPrefix', 'Root field prefix')}
          {textField('rootSuffix', 'Root field suffix')}
          {textField('typePrefix', 'Type name prefix')}
          {textField('typeSuffix', 'Type name suffix')}
        </div>
      </fieldset>
      <Status value={status} />
      <div className="row">
        <button type="submit" className="btn primary">
          Save configuration
        </button>
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
