/**
 * A tracked function's page (Data → a function): its configuration (exposed
 * as query or mutation, the session argument; other keys such as the custom
 * name are kept) saved with `<prefix>_set_function_customization`, untrack,
 * and its permissions per role (./FunctionPermissions.tsx).
 */
import { useState, type FormEvent } from 'react';
import type { FunctionMetadata } from '../../../../model/document.ts';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import type { SourceEntry } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { operationPrefix } from '../../source-kinds.ts';
import { FunctionPermissions } from './FunctionPermissions.tsx';
import { functionKey, withConfiguration, type ExposedAs } from './functions.ts';

export function FunctionView({ source, fn, onChange }: { source: SourceEntry; fn: FunctionMetadata; onChange: () => Promise<void> }) {
  const key = functionKey(source.kind, fn);
  const prefix = operationPrefix(source.kind);
  const [status, run] = useAction();
  const [exposedAs, setExposedAs] = useState<ExposedAs>(fn.configuration?.exposed_as ?? '');
  const [sessionArgument, setSessionArgument] = useState(fn.configuration?.session_argument ?? '');
  const save = (e: FormEvent) => {
    e.preventDefault();
    void run(`Saving ${key}…`, `Saved the configuration of function ${key}`, async () => {
      await callMetadata(`${prefix}_set_function_customization`, {
        source: source.name,
        function: fn.function,
        configuration: withConfiguration(fn.configuration, exposedAs, sessionArgument),
      });
      await onChange();
    });
  };
  return (
    <section aria-labelledby="function-heading">
      <h1 id="function-heading">
        {key} <span className="muted">(function)</span>
      </h1>
      <form className="editor" aria-label={`Configuration of function ${key}`} onSubmit={save}>
        <h2>Configuration</h2>
        <div className="row">
          <label htmlFor="fn-exposed-as">Exposed as</label>
          <select id="fn-exposed-as" value={exposedAs} onChange={(e) => setExposedAs(e.target.value as ExposedAs)}>
            <option value="">default (by volatility)</option>
            <option value="query">query</option>
            <option value="mutation">mutation</option>
          </select>
          <label htmlFor="fn-session-argument">Session argument</label>
          <input id="fn-session-argument" className="short" placeholder="none" value={sessionArgument} onChange={(e) => setSessionArgument(e.target.value)} />
        </div>
        <div className="row">
          <button type="submit" className="btn primary">
            Save configuration
          </button>
          <button
            type="button"
            className="btn danger"
            aria-label={`Untrack function ${key}`}
            onClick={() =>
              void run(`Untracking ${key}…`, `Untracked function ${key}`, async () => {
                await callMetadata(`${prefix}_untrack_function`, { source: source.name, function: fn.function });
                await onChange();
                navigate('data', { source: source.name });
              })
            }
          >
            Untrack
          </button>
          {/* Beside the buttons: the form keeps no empty line for it. */}
          <Status value={status} />
        </div>
      </form>
      <FunctionPermissions source={source} fn={fn} onChange={onChange} />
    </section>
  );
}
