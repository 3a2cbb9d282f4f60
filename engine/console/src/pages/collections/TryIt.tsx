/** Calls a REST endpoint (`/api/rest/<url>`) as admin with its URL parameters filled in, and shows the answer. */
import { useState } from 'react';
import { restCall, type RestAnswer } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { type RestEndpointEntry } from '../../metadata-state.tsx';
import { urlParams } from './collection-links.ts';

export function TryIt({ endpoint }: { endpoint: RestEndpointEntry }) {
  const params = urlParams(endpoint.url);
  const [values, setValues] = useState<Record<string, string>>({});
  const [method, setMethod] = useState(endpoint.methods[0] ?? 'GET');
  const [body, setBody] = useState('');
  const [answer, setAnswer] = useState<RestAnswer | null>(null);
  const [status, run] = useAction();
  const path = endpoint.url
    .split('/')
    .map((s) => (s.startsWith(':') ? encodeURIComponent(values[s.slice(1)] ?? '') : s))
    .join('/');
  let pretty = answer?.body ?? '';
  try {
    pretty = JSON.stringify(JSON.parse(pretty), null, 2);
  } catch {
    // Not JSON: shown as it came.
  }
  return (
    <form
      className="editor"
      aria-label={`Try endpoint ${endpoint.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void run('Calling…', '', async () => {
          let parsed: unknown;
          if (method !== 'GET' && body.trim() !== '') {
            try {
              parsed = JSON.parse(body);
            } catch {
              throw new Error('The body is not JSON');
            }
          }
          setAnswer(await restCall(method, path, parsed));
        });
      }}
    >
      <h2>Try {endpoint.name}</h2>
      <div className="row">
        <label htmlFor="try-method">Method</label>
        <select id="try-method" value={method} onChange={(e) => setMethod(e.target.value)}>
          {endpoint.methods.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        {params.map((p) => (
          <span key={p} className="row">
            <label htmlFor={`try-param-${p}`}>{p}</label>
            <input id={`try-param-${p}`} value={values[p] ?? ''} onChange={(e) => setValues({ ...values, [p]: e.target.value })} />
          </span>
        ))}
        <code>/api/rest/{path}</code>
      </div>
      {method !== 'GET' && (
        <div className="field">
          <label htmlFor="try-body">Body (JSON variables)</label>
          <textarea id="try-body" rows={3} spellCheck={false} value={body} onChange={(e) => setBody(e.target.value)} />
        </div>
      )}
      <button type="submit" className="btn primary">
        Send request
      </button>
      <Status value={status} />
      {answer !== null && (
        <>
          <p>
            HTTP status <strong aria-label="Response status">{answer.status}</strong>
          </p>
          <pre aria-label="Response body">{pretty}</pre>
        </>
      )}
    </form>
  );
}
