/** The Data page's SQL editor: `run_sql` on the source, read-only and cascade switches, results as a table. */
import { useState } from 'react';
import { runSql, type SqlResult } from '../../api.ts';
import { ResultTable, Status, useAction } from '../../components.tsx';

export function SqlEditor({ source, onDone }: { source: string; onDone: () => Promise<void> }) {
  const [sql, setSql] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [cascade, setCascade] = useState(false);
  const [result, setResult] = useState<SqlResult | null>(null);
  const [status, run] = useAction();
  const submit = () =>
    void run('Running…', 'Done', async () => {
      setResult(null);
      const r = await runSql(sql, { source, readOnly, cascade });
      setResult(r);
      if (!readOnly) await onDone();
    });
  return (
    <section aria-labelledby="sql-heading">
      <h1 id="sql-heading">SQL on source {source}</h1>
      <div className="field">
        <label htmlFor="sql-text">SQL</label>
        <textarea
          id="sql-text"
          rows={10}
          value={sql}
          spellCheck={false}
          onChange={(e) => setSql(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit();
          }}
        />
      </div>
      <div className="row">
        <label>
          <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> Read only
        </label>
        <label>
          <input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} /> Cascade metadata
        </label>
        <button type="button" className="btn primary" onClick={submit}>
          Run SQL
        </button>
        <span className="muted">Ctrl+Enter runs it too.</span>
      </div>
      <Status value={status} />
      {result !== null && result.result_type === 'TuplesOk' && result.result !== null && <ResultTable rows={result.result} label="SQL result" />}
      {result !== null && result.result_type === 'CommandOk' && <p>Command completed.</p>}
    </section>
  );
}
