/**
 * API explorer: GraphiQL (with the explorer and history plugins) over
 * /v1/graphql, a request-headers panel (role, session variables; the admin
 * secret of the session is sent so an admin can act as any role), and an
 * "Explain" plugin that shows the SQL and plan of the current query
 * (/v1/graphql/explain, admin only). Subscriptions go over a WebSocket to
 * /v1/graphql (graphql-transport-ws), the same headers in its init payload.
 */
import { createContext, useContext, useEffect, useMemo, useState } from 'react';
import { GraphiQL } from 'graphiql';
import { parse, type OperationDefinitionNode } from 'graphql';
import { createClient } from 'graphql-ws';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { HISTORY_PLUGIN } from '@graphiql/plugin-history';
import type { GraphiQLPlugin } from '@graphiql/react';
import type { Fetcher } from '@graphiql/toolkit';
import { adminHeaders, apiUrl, explain, messageOf, wsUrl, type ExplainedField } from '../api.ts';
import { knownRoles, useMetadata } from '../metadata-state.tsx';

interface Current {
  query: string;
  variables: string;
  role: string;
  sessionVariables: Record<string, string>;
}

const CurrentCtx = createContext<{ current: Current } | null>(null);

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

const EXPLAIN_PLUGIN: GraphiQLPlugin = { title: 'Generated SQL (explain)', icon: ExplainIcon, content: ExplainPanel };

/** Whether the operation GraphiQL runs is a subscription (those go over the WebSocket). */
function isSubscription(query: string, operationName: string | null | undefined): boolean {
  try {
    const ops = parse(query).definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
    return op?.operation === 'subscription';
  } catch {
    return false;
  }
}

interface GraphiqlParams {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

interface HeaderRow {
  key: string;
  value: string;
}

export function ApiExplorer() {
  const { metadata } = useMetadata();
  const roles = ['admin', ...knownRoles(metadata).filter((r) => r !== 'admin')];
  const [roleText, setRoleText] = useState('admin');
  const [rows, setRows] = useState<HeaderRow[]>([{ key: 'x-engine-user-id', value: '' }]);
  // GraphiQL is mounted again (and the role's schema fetched) when the headers change: not on every keystroke.
  const [applied, setApplied] = useState<{ role: string; rows: HeaderRow[] }>({ role: 'admin', rows });
  useEffect(() => {
    const t = setTimeout(() => setApplied({ role: roleText.trim() === '' ? 'admin' : roleText.trim(), rows }), 400);
    return () => clearTimeout(t);
  }, [roleText, rows]);
  const role = applied.role;
  const sessionVariables = useMemo(() => {
    const out: Record<string, string> = {};
    for (const r of applied.rows) if (r.key.trim() !== '' && r.value !== '') out[r.key.trim().toLowerCase()] = r.value;
    return out;
  }, [applied.rows]);
  const requestHeaders = useMemo(
    () => ({ ...adminHeaders(), ...(role !== 'admin' ? { 'x-engine-role': role } : {}), ...sessionVariables }),
    [role, sessionVariables],
  );
  const holder = useMemo(() => ({ current: { query: '', variables: '', role, sessionVariables } as Current }), []);
  holder.current.role = role;
  holder.current.sessionVariables = sessionVariables;
  // One socket per set of headers, opened on the first subscription and closed with this view.
  const ws = useMemo(() => createClient({ url: wsUrl('v1/graphql'), lazy: true, connectionParams: () => ({ headers: requestHeaders }) }), [requestHeaders]);
  useEffect(() => () => void ws.dispose(), [ws]);
  const fetcher = useMemo(
    (): Fetcher => (params, opts) => {
      const p = params as GraphiqlParams;
      if (isSubscription(p.query, p.operationName)) {
        return ws.iterate({
          query: p.query,
          ...(p.operationName ? { operationName: p.operationName } : {}),
          ...(p.variables ? { variables: p.variables } : {}),
        }) as unknown as ReturnType<Fetcher>;
      }
      return fetch(apiUrl('v1/graphql'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts?.headers as Record<string, string> | undefined), ...requestHeaders },
        body: JSON.stringify(params),
      }).then((res) => res.json()) as ReturnType<Fetcher>;
    },
    [requestHeaders, ws],
  );
  const plugins = useMemo(() => [HISTORY_PLUGIN, explorerPlugin(), EXPLAIN_PLUGIN], []);
  const shown = Object.entries(requestHeaders).map(([k, v]) => `${k}: ${k === 'x-engine-admin-secret' ? '••••••' : v}`);
  return (
    <div className="api-explorer">
      <section className="headers-panel" aria-label="Request headers">
        <div className="field">
          <label htmlFor="explorer-role">Role</label>
          <input id="explorer-role" list="explorer-roles" value={roleText} onChange={(e) => setRoleText(e.target.value)} />
          <datalist id="explorer-roles">
            {roles.map((r) => (
              <option key={r} value={r} />
            ))}
          </datalist>
        </div>
        <fieldset className="session-vars">
          <legend>Session variables</legend>
          {rows.map((r, i) => (
            <div key={i} className="row">
              <input
                aria-label={`Session variable ${i + 1} name`}
                value={r.key}
                placeholder="x-engine-user-id"
                onChange={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)))}
              />
              <input
                aria-label={`Session variable ${i + 1} value`}
                value={r.value}
                placeholder="value"
                onChange={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
              />
              <button
                type="button"
                className="btn small"
                aria-label={`Remove session variable ${i + 1}`}
                onClick={() => setRows(rows.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </div>
          ))}
          <button type="button" className="btn small" onClick={() => setRows([...rows, { key: 'x-engine-', value: '' }])}>
            Add session variable
          </button>
        </fieldset>
        <div className="sent" aria-label="Headers sent">
          {shown.map((s) => (
            <code key={s}>{s}</code>
          ))}
        </div>
      </section>
      <CurrentCtx.Provider value={holder}>
        <div className="graphiql-host">
          <GraphiQL
            key={JSON.stringify(requestHeaders)}
            fetcher={fetcher}
            plugins={plugins}
            onEditQuery={(q) => (holder.current.query = q)}
            onEditVariables={(v) => (holder.current.variables = v)}
            shouldPersistHeaders={false}
            isHeadersEditorEnabled={true}
          />
        </div>
      </CurrentCtx.Provider>
    </div>
  );
}
