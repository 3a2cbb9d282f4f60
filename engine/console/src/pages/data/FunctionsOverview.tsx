/**
 * The functions of a source on the Data page's overview: the tracked ones
 * (a link to each one's page, how it is exposed, untrack) and, as v2's
 * "Untracked custom functions", the others, each tracked with its
 * configuration (exposed as query or mutation, the session argument) by
 * `<prefix>_track_function`.
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import type { DbInfo } from '../../introspect.ts';
import type { SourceEntry } from '../../metadata-state.tsx';
import { operationPrefix, wireTable } from '../../source-kinds.ts';
import { functionKey, trackedFunctions, withConfiguration, type ExposedAs } from './functions.ts';

type Run = (busy: string, ok: string, action: () => Promise<unknown>) => Promise<boolean>;

export function functionLink(source: string, key: string): string {
  return `#/data?${new URLSearchParams({ source, function: key }).toString()}`;
}

export function FunctionsOverview({ source, db, run, onChange }: { source: SourceEntry; db: DbInfo; run: Run; onChange: () => Promise<void> }) {
  const prefix = operationPrefix(source.kind);
  const tracked = trackedFunctions(source);
  const trackedKeys = new Set(tracked.map((f) => functionKey(source.kind, f)));
  const untracked = db.functions.filter((f) => !trackedKeys.has(`${f.schema}.${f.name}`));
  const [exposed, setExposed] = useState<Record<string, ExposedAs>>({});
  const [sessionArgs, setSessionArgs] = useState<Record<string, string>>({});
  return (
    <>
      <h2>Tracked functions</h2>
      {tracked.length === 0 ? (
        <p className="muted">No function is tracked.</p>
      ) : (
        <table className="grid" aria-label="Tracked functions">
          <thead>
            <tr>
              <th scope="col">Function</th>
              <th scope="col">Exposed as</th>
              <th scope="col">Session argument</th>
              <th scope="col">Roles allowed</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {tracked.map((f) => {
              const key = functionKey(source.kind, f);
              return (
                <tr key={key}>
                  <th scope="row">
                    <a href={functionLink(source.name, key)}>{key}</a>
                  </th>
                  <td>{f.configuration?.exposed_as ?? 'default'}</td>
                  <td>{f.configuration?.session_argument ?? ''}</td>
                  <td>{(f.permissions ?? []).map((p) => p.role).join(', ')}</td>
                  <td>
                    <button
                      type="button"
                      className="btn small danger"
                      aria-label={`Untrack function ${key}`}
                      onClick={() =>
                        void run(`Untracking ${key}…`, `Untracked function ${key}`, async () => {
                          await callMetadata(`${prefix}_untrack_function`, { source: source.name, function: f.function });
                          await onChange();
                        })
                      }
                    >
                      Untrack
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <h2>Untracked custom functions</h2>
      {untracked.length === 0 ? (
        <p className="muted">{db.functions.length === 0 ? 'No functions in this database.' : 'Every function is tracked.'}</p>
      ) : (
        <table className="grid" aria-label="Untracked custom functions">
          <thead>
            <tr>
              <th scope="col">Function</th>
              <th scope="col">Volatility</th>
              <th scope="col">Exposed as</th>
              <th scope="col">Session argument</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {untracked.map((f) => {
              const key = `${f.schema}.${f.name}`;
              const configuration = withConfiguration(undefined, exposed[key] ?? '', sessionArgs[key] ?? '');
              return (
                <tr key={key}>
                  <th scope="row">{key}</th>
                  <td>{f.volatility}</td>
                  <td>
                    <select
                      aria-label={`Exposed as of ${key}`}
                      value={exposed[key] ?? ''}
                      onChange={(e) => setExposed({ ...exposed, [key]: e.target.value as ExposedAs })}
                    >
                      <option value="">default ({f.volatility === 'volatile' ? 'mutation' : 'query'})</option>
                      <option value="query">query</option>
                      <option value="mutation">mutation</option>
                    </select>
                  </td>
                  <td>
                    <input
                      className="short"
                      aria-label={`Session argument of ${key}`}
                      placeholder="none"
                      value={sessionArgs[key] ?? ''}
                      onChange={(e) => setSessionArgs({ ...sessionArgs, [key]: e.target.value })}
                    />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="btn small primary"
                      aria-label={`Track function ${key}`}
                      onClick={() =>
                        void run(`Tracking ${key}…`, `Tracked function ${key}`, async () => {
                          await callMetadata(`${prefix}_track_function`, {
                            source: source.name,
                            function: wireTable(source.kind, f),
                            ...(Object.keys(configuration).length > 0 ? { configuration } : {}),
                          });
                          await onChange();
                        })
                      }
                    >
                      Track
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
