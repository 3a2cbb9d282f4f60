/**
 * The live preview of a request transform: what the engine makes of the sample request
 * (`test_webhook_transform`, asked again a moment after the last keystroke), or the engine's
 * error with the template positions it gives.
 */
import { useEffect, useState } from 'react';
import { ApiError, messageOf, metadata as callMetadata } from '../api.ts';

interface Transformed {
  readonly method: string;
  readonly webhook_url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: unknown;
}

type Preview = { kind: 'idle'; text: string } | { kind: 'busy' } | { kind: 'ok'; result: Transformed } | { kind: 'error'; message: string; details: string[] };

/** Waits this long after the last change before asking the engine. */
const DEBOUNCE_MS = 400;

/** v2's `internal` of a template error: `[{error_code, message, source_position}]`, one line each. */
function details(e: unknown): string[] {
  if (!(e instanceof ApiError) || !Array.isArray(e.internal)) return [];
  return e.internal.map((i: unknown) => {
    const r = (typeof i === 'object' && i !== null ? i : {}) as {
      error_code?: unknown;
      message?: unknown;
      source_position?: { start_line?: unknown; start_column?: unknown };
    };
    const at = r.source_position !== undefined ? ` (line ${String(r.source_position.start_line)}, column ${String(r.source_position.start_column)})` : '';
    return `${typeof r.error_code === 'string' ? `${r.error_code}: ` : ''}${typeof r.message === 'string' ? r.message : JSON.stringify(i)}${at}`;
  });
}

export function TransformPreview({
  label,
  webhookUrl,
  sample,
  transform,
}: {
  label: string;
  webhookUrl: string | { from_env: string } | null;
  sample: string;
  transform: Record<string, unknown> | undefined;
}) {
  const [preview, setPreview] = useState<Preview>({ kind: 'idle', text: '' });
  const key = JSON.stringify({ webhookUrl, sample, transform });
  useEffect(() => {
    if (webhookUrl === null) {
      setPreview({ kind: 'idle', text: 'Give the URL to preview the request.' });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(sample);
    } catch {
      setPreview({ kind: 'error', message: 'The sample input is not JSON.', details: [] });
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      setPreview({ kind: 'busy' });
      callMetadata<Transformed>('test_webhook_transform', {
        webhook_url: webhookUrl,
        body,
        request_transform: transform ?? { version: 2, template_engine: 'Kriti' },
      }).then(
        (result) => {
          if (current) setPreview({ kind: 'ok', result });
        },
        (e: unknown) => {
          if (current) setPreview({ kind: 'error', message: messageOf(e), details: details(e) });
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
    // `key` stands for the three inputs it is made of (a new object each render, the same text).
  }, [key]);
  return (
    <section className="transform-preview" aria-label={label} aria-busy={preview.kind === 'busy'}>
      <h3>{label}</h3>
      {preview.kind === 'idle' && <p className="muted">{preview.text}</p>}
      {preview.kind === 'busy' && <p className="muted">Asking the engine…</p>}
      {preview.kind === 'error' && (
        <div role="alert" className="error">
          <p>{preview.message}</p>
          {preview.details.length > 0 && (
            <ul>
              {preview.details.map((d, i) => (
                <li key={i}>{d}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {preview.kind === 'ok' && (
        <dl className="preview-request">
          <dt>Method</dt>
          <dd aria-label="Transformed method">{preview.result.method}</dd>
          <dt>URL</dt>
          <dd>
            <code aria-label="Transformed URL">{preview.result.webhook_url}</code>
          </dd>
          <dt>Headers</dt>
          <dd>
            {preview.result.headers.map(([n, v]) => (
              <div key={n}>
                <code>
                  {n}: {v}
                </code>
              </div>
            ))}
          </dd>
          <dt>Body</dt>
          <dd>
            <pre aria-label="Transformed body">
              {typeof preview.result.body === 'string' ? preview.result.body : JSON.stringify(preview.result.body, null, 2)}
            </pre>
          </dd>
        </dl>
      )}
    </section>
  );
}
