/**
 * The request and response transforms of a webhook (an action's handler, an event trigger's
 * webhook): method, URL template, query parameters, headers to add and remove, the body (a Kriti
 * template, removed, or form fields), the response body's template; beside them a sample input and
 * the engine's live preview of the transformed request. `idPrefix` keeps the ids of two editors
 * apart; the caller saves `requestTransformOf` / `responseTransformOf` of the form.
 */
import { PairRows } from './PairRows.tsx';
import { TransformPreview } from './TransformPreview.tsx';
import { METHODS, requestTransformOf, type BodyAction, type TransformForm } from './transform-form.ts';

export function TransformEditor({
  idPrefix,
  value,
  onChange,
  webhookUrl,
  sample,
  onSample,
}: {
  idPrefix: string;
  value: TransformForm;
  onChange: (f: TransformForm) => void;
  webhookUrl: string | { from_env: string } | null;
  sample: string;
  onSample: (s: string) => void;
}) {
  const set = (patch: Partial<TransformForm>) => onChange({ ...value, ...patch });
  const id = (what: string) => `${idPrefix}-${what}`;
  return (
    <>
      <fieldset>
        <legend>Request transform</legend>
        <div className="two-columns">
          <div>
            <div className="row">
              <label htmlFor={id('method')}>Method</label>
              <select id={id('method')} value={value.method} onChange={(e) => set({ method: e.target.value })}>
                <option value="">unchanged (POST)</option>
                {METHODS.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={id('url')}>URL template</label>
              <input id={id('url')} className="wide" placeholder="{{$base_url}}/path" value={value.url} onChange={(e) => set({ url: e.target.value })} />
            </div>
            {value.queryTemplate !== null ? (
              <div className="field">
                <label htmlFor={id('query')}>Query string template</label>
                <input id={id('query')} className="wide" value={value.queryTemplate} onChange={(e) => set({ queryTemplate: e.target.value })} />
              </div>
            ) : (
              <PairRows label="Query params" rows={value.queryParams} onChange={(queryParams) => set({ queryParams })} valuePlaceholder="{{$body.input.id}}" />
            )}
            <PairRows label="Headers to add" rows={value.addHeaders} onChange={(addHeaders) => set({ addHeaders })} valuePlaceholder="value or template" />
            <div className="field">
              <label htmlFor={id('remove-headers')}>Headers to remove (comma-separated)</label>
              <input id={id('remove-headers')} className="wide" value={value.removeHeaders} onChange={(e) => set({ removeHeaders: e.target.value })} />
            </div>
            <div className="row">
              <label htmlFor={id('body-action')}>Request body</label>
              <select id={id('body-action')} value={value.body} onChange={(e) => set({ body: e.target.value as BodyAction })}>
                <option value="keep">unchanged</option>
                <option value="transform">transform with a template</option>
                <option value="remove">remove</option>
                <option value="x_www_form_urlencoded">x-www-form-urlencoded fields</option>
              </select>
            </div>
            {value.body === 'transform' && (
              <div className="field">
                <label htmlFor={id('body')}>Request body template (Kriti)</label>
                <textarea
                  id={id('body')}
                  rows={6}
                  spellCheck={false}
                  placeholder={'{\n  "id": {{$body.input.id}}\n}'}
                  value={value.bodyTemplate}
                  onChange={(e) => set({ bodyTemplate: e.target.value })}
                />
              </div>
            )}
            {value.body === 'x_www_form_urlencoded' && (
              <PairRows label="Form fields" rows={value.formFields} onChange={(formFields) => set({ formFields })} valuePlaceholder="{{$body.input.id}}" />
            )}
          </div>
          <div>
            <div className="field">
              <label htmlFor={id('sample')}>Sample input (the request before the transform)</label>
              <textarea id={id('sample')} rows={8} spellCheck={false} value={sample} onChange={(e) => onSample(e.target.value)} />
            </div>
            <TransformPreview label="Transformed request" webhookUrl={webhookUrl} sample={sample} transform={requestTransformOf(value)} />
          </div>
        </div>
      </fieldset>
      <fieldset>
        <legend>Response transform</legend>
        <div className="field">
          <label htmlFor={id('response')}>Response body template (Kriti; empty: the response as it comes)</label>
          <textarea
            id={id('response')}
            rows={4}
            spellCheck={false}
            placeholder={'{\n  "id": {{$body.result.id}}\n}'}
            value={value.responseBody}
            onChange={(e) => set({ responseBody: e.target.value })}
          />
        </div>
      </fieldset>
    </>
  );
}
