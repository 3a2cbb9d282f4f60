/**
 * API explorer: GraphiQL (with the explorer and history plugins) over
 * /v1/graphql, a request-headers panel (role, session variables; the admin
 * secret of the session is sent so an admin can act as any role), and an
 * "Explain" plugin that shows the SQL and plan of the current query
 * (/v1/graphql/explain, admin only). Subscriptions go over a WebSocket to
 * /v1/graphql (graphql-transport-ws), the same headers in its init payload.
 */
import { useEffect, useMemo, useState } from 'react';
import { GraphiQL } from 'graphiql';
import { parse, type OperationDefinitionNode } from 'graphql';
import { createClient } from 'graphql-ws';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { HISTORY_PLUGIN } from '@graphiql/plugin-history';
import type { Fetcher } from '@graphiql/toolkit';
import { adminHeaders, apiUrl, wsUrl } from '../../api.ts';
import { knownRoles, useMetadata } from '../../metadata-state.tsx';
import { CurrentCtx, EXPLAIN_PLUGIN, type Current } from './ExplainPanel.tsx';
import { sampleQuery, type Sample } from './sample-query.ts';

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

/** The role list's entry that shows a field for a role the metadata does not know. */
const OTHER = '(other)';

interface HeaderRow {
  key: string;
  value: string;
}

export function ApiExplorer() {
  const { metadata } = useMetadata();
  const roles = ['admin', ...knownRoles(metadata).filter((r) => r !== 'admin')];
  // A role the metadata knows is picked from the list; any other (a JWT's, say) is typed under "Other role".
  const [picked, setPicked] = useState('admin');
  const [otherRole, setOtherRole] = useState('');
  const roleText = picked === OTHER ? otherRole : picked;
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
  // The query GraphiQL opens on, from this role's schema; GraphiQL waits for it (a stored query still wins).
  const [sample, setSample] = useState<{ for: string; sample: Sample } | null>(null);
  const headersKey = JSON.stringify(requestHeaders);
  useEffect(() => {
    let live = true;
    void sampleQuery(requestHeaders).then((s) => live && setSample({ for: headersKey, sample: s }));
    return () => {
      live = false;
    };
  }, [headersKey]);
  const ready = sample?.for === headersKey ? sample.sample : null;
  const plugins = useMemo(() => [HISTORY_PLUGIN, explorerPlugin(), EXPLAIN_PLUGIN], []);
  const shown = Object.entries(requestHeaders).map(([k, v]) => `${k}: ${k === 'x-engine-admin-secret' ? '••••••' : v}`);
  return (
    <div className="api-explorer">
      <section className="headers-panel" aria-label="Request headers">
        <div className="field">
          <label htmlFor="explorer-role">Role</label>
          <select id="explorer-role" value={picked} onChange={(e) => setPicked(e.target.value)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
            <option value={OTHER}>Other role…</option>
          </select>
          {picked === OTHER && <input aria-label="Other role" value={otherRole} placeholder="role name" onChange={(e) => setOtherRole(e.target.value)} />}
          {ready?.kind === 'empty' && (
            <p role="status" className="warn" aria-label="Schema of the role">
              {role === 'admin' ? (
                <>
                  Role admin sees an empty schema: nothing is tracked yet. Track tables on the <a href="#/data">Data page</a>.
                </>
              ) : (
                <>
                  Role {role} sees an empty schema: no table, function, action or remote schema grants it anything. Give it permissions on the{' '}
                  <a href="#/permissions">Permissions page</a>.
                </>
              )}
            </p>
          )}
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
          {ready === null ? (
            <p className="loading">Reading the schema of role {role}…</p>
          ) : (
            <GraphiQL
              key={headersKey}
              defaultQuery={
                ready.kind === 'query'
                  ? ready.query
                  : ready.kind === 'empty'
                    ? `# Role ${role} sees an empty schema: nothing to query yet.\n`
                    : `# Write a query here. (No sample: ${ready.reason.replace(/\n/g, ' ')})\n`
              }
              fetcher={fetcher}
              plugins={plugins}
              onEditQuery={(q) => (holder.current.query = q)}
              onEditVariables={(v) => (holder.current.variables = v)}
              shouldPersistHeaders={false}
              isHeadersEditorEnabled={true}
            />
          )}
        </div>
      </CurrentCtx.Provider>
    </div>
  );
}
