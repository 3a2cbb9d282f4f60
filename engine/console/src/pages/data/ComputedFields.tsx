/**
 * A tracked table's computed fields (Data page, "Computed fields" tab): the
 * list with a drop button, and a form that adds one from a function of the
 * source (`<prefix>_add_computed_field`; the table and session arguments are
 * optional, as in v2, which then passes the row as the first argument).
 */
import { useState, type FormEvent } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import type { DbFunction } from '../../introspect.ts';
import { operationPrefix, qualifiedText, wireTable } from '../../source-kinds.ts';
import { tableKey, type SourceEntry, type TableEntry } from '../../metadata-state.tsx';

interface ComputedFieldEntry {
  readonly name: string;
  readonly definition: {
    readonly function: { readonly schema?: string; readonly name: string } | string;
    readonly table_argument?: string | null;
    readonly session_argument?: string | null;
  };
  readonly comment?: string | null;
}

function fnText(kind: string, f: ComputedFieldEntry['definition']['function']): string {
  return qualifiedText(kind, f) ?? JSON.stringify(f);
}

export function ComputedFields({
  source,
  entry,
  functions,
  onChange,
}: {
  source: SourceEntry;
  entry: TableEntry;
  functions: readonly DbFunction[];
  onChange: () => Promise<void>;
}) {
  const key = tableKey(entry.table);
  const prefix = operationPrefix(source.kind);
  const fields = ((entry as { computed_fields?: readonly ComputedFieldEntry[] }).computed_fields ?? []) as readonly ComputedFieldEntry[];
  const [status, run] = useAction();
  const [name, setName] = useState('');
  const [fn, setFn] = useState('');
  const [tableArg, setTableArg] = useState('');
  const [sessionArg, setSessionArg] = useState('');
  const [comment, setComment] = useState('');
  const add = (e: FormEvent) => {
    e.preventDefault();
    void run(`Adding ${name}…`, `Added the computed field ${name} on ${key}`, async () => {
      const picked = functions.find((f) => `${f.schema}.${f.name}` === fn);
      if (name.trim() === '') throw new Error('A computed field needs a name.');
      if (picked === undefined) throw new Error('Pick the function that computes the field.');
      await callMetadata(`${prefix}_add_computed_field`, {
        source: source.name,
        table: entry.table,
        name: name.trim(),
        definition: {
          function: wireTable(source.kind, picked),
          ...(tableArg.trim() !== '' ? { table_argument: tableArg.trim() } : {}),
          ...(sessionArg.trim() !== '' ? { session_argument: sessionArg.trim() } : {}),
        },
        ...(comment.trim() !== '' ? { comment: comment.trim() } : {}),
      });
      setName('');
      setFn('');
      setTableArg('');
      setSessionArg('');
      setComment('');
      await onChange();
    });
  };
  return (
    <section aria-label={`Computed fields of ${key}`}>
      <h2>Computed fields</h2>
      <Status value={status} />
      {fields.length === 0 ? (
        <p className="muted">No computed fields.</p>
      ) : (
        <table className="grid" aria-label={`Computed fields of ${key}`}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Function</th>
              <th scope="col">Table argument</th>
              <th scope="col">Session argument</th>
              <th scope="col">Comment</th>
              <th scope="col">Drop</th>
            </tr>
          </thead>
          <tbody>
            {fields.map((f) => (
              <tr key={f.name}>
                <th scope="row">{f.name}</th>
                <td>{fnText(source.kind, f.definition.function)}</td>
                <td>{f.definition.table_argument ?? ''}</td>
                <td>{f.definition.session_argument ?? ''}</td>
                <td>{f.comment ?? ''}</td>
                <td>
                  <button
                    type="button"
                    className="btn small danger"
                    aria-label={`Drop computed field ${f.name}`}
                    onClick={() =>
                      void run(`Dropping ${f.name}…`, `Dropped the computed field ${f.name}`, async () => {
                        await callMetadata(`${prefix}_drop_computed_field`, { source: source.name, table: entry.table, name: f.name });
                        await onChange();
                      })
                    }
                  >
                    Drop
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="editor" onSubmit={add} aria-label={`Add a computed field to ${key}`}>
        <h3>Add a computed field</h3>
        <div className="row">
          <label htmlFor="cf-name">Computed field name</label>
          <input id="cf-name" className="short" value={name} onChange={(e) => setName(e.target.value)} />
          <label htmlFor="cf-function">Function</label>
          <select id="cf-function" value={fn} onChange={(e) => setFn(e.target.value)}>
            <option value="">(pick one)</option>
            {functions.map((f) => (
              <option key={`${f.schema}.${f.name}`} value={`${f.schema}.${f.name}`}>
                {f.schema}.{f.name}
              </option>
            ))}
          </select>
        </div>
        <div className="row">
          <label htmlFor="cf-table-arg">Table argument</label>
          <input id="cf-table-arg" className="short" placeholder="the first" value={tableArg} onChange={(e) => setTableArg(e.target.value)} />
          <label htmlFor="cf-session-arg">Session argument</label>
          <input id="cf-session-arg" className="short" placeholder="none" value={sessionArg} onChange={(e) => setSessionArg(e.target.value)} />
          <label htmlFor="cf-comment">Comment</label>
          <input id="cf-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
        </div>
        <button type="submit" className="btn primary">
          Add computed field
        </button>
      </form>
    </section>
  );
}
