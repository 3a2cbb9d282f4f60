/**
 * The "Generated SQL" plugin of the API explorer: the SQL and plan of the
 * query in the editor as the role of the headers panel (/v1/graphql/explain).
 */
import { createContext, useContext, useState } from 'react';
import type { GraphiQLPlugin } from '@graphiql/react';
import { explain, messageOf, type ExplainedField } from '../../api.ts';

export interface Current {
  query: string;
  variables: string;
  role: string;
  sessionVariables: Record<string, string>;
}

export const CurrentCtx = createContext<{ current: Current } | null>(null);

function ExplainPanel() {
  const holder = useContext(CurrentCtx)!;
  const [result, setResult] = useState<ExplainedField[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    const { query, variables, role, sessionVariables } = holder.current;
    setBusy(true);
    setError(null);
    try {
      let vars: Record<string, unknown> = {};
      if (variables.trim() !== '') vars = JSON.parse(variables) as Record<string, unknown>;
      const user: Record<string, string> = { ...sessionVariables, 'x-engine-role': role };
      setResult(await explain(query, vars, null, user));
    } catch (e) {
      setResult(null);
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="explain" aria-label="Generated SQL">
      <div className="graphiql-doc-explorer-title">Generated SQL</div>
      <p>The SQL and plan the engine runs for the query in the editor, as the role in the headers panel.</p>
      <button type="button" className="btn" onClick={() => void run()} disabled={busy}>
        {busy ? 'Explaining…' : 'Explain query'}
      </button>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {result?.map((f) => (
        <div key={f.field} className="explain-field">
          <h3>{f.field}</h3>
          {f.sql !== null && <pre aria-label={`SQL of ${f.field}`}>{f.sql}</pre>}
          {f.plan !== null && <pre aria-label={`Plan of ${f.field}`}>{f.plan.join('\n')}</pre>}
          {f.remote_request !== undefined && <pre aria-label={`Request of ${f.field} to ${f.remote_request.remote_schema}`}>{f.remote_request.query}</pre>}
          {f.joins?.map((j, i) => (
            <div key={i} className="explain-join">
              <h4>{j.kind === 'sql' ? `Join at ${j.path} on source ${j.source}` : `Join at ${j.path} to ${j.remote_schema}`}</h4>
              <pre aria-label={`Join ${i + 1} of ${f.field}`}>{j.kind === 'sql' ? j.sql : j.query}</pre>
              {j.kind === 'sql' && j.plan !== null && <pre aria-label={`Plan of join ${i + 1} of ${f.field}`}>{j.plan.join('\n')}</pre>}
            </div>
          ))}
        </div>
      ))}
    </section>
  );
}

function ExplainIcon() {
  return (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
      <text x="2" y="17" fontSize="12" fontFamily="monospace" fill="currentColor">
        SQL
      </text>
    </svg>
  );
}

export const EXPLAIN_PLUGIN: GraphiQLPlugin = { title: 'Generated SQL (explain)', icon: ExplainIcon, content: ExplainPanel };
