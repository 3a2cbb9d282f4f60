/** Relationships suggested from foreign keys, each with an editable name and one click to add it. */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { tableKey } from '../../metadata-state.tsx';
import { operationPrefix } from '../../source-kinds.ts';
import type { Suggestion } from './relationships.ts';

export function SuggestionList({
  source,
  kind,
  suggestions,
  onChange,
  run,
}: {
  source: string;
  kind: string;
  suggestions: Suggestion[];
  onChange: () => Promise<void>;
  run: (busy: string, ok: string, action: () => Promise<unknown>) => Promise<boolean>;
}) {
  const [names, setNames] = useState<Record<string, string>>({});
  if (suggestions.length === 0) return <p className="muted">No foreign key between tracked tables lacks a relationship.</p>;
  return (
    <table className="grid" aria-label="Suggested relationships">
      <thead>
        <tr>
          <th scope="col">On table</th>
          <th scope="col">Kind</th>
          <th scope="col">Foreign key</th>
          <th scope="col">Name</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>
        {suggestions.map((s) => {
          const id = `${s.kind}:${tableKey(s.table)}:${JSON.stringify(s.using)}`;
          const name = names[id] ?? s.name;
          return (
            <tr key={id}>
              <td>{tableKey(s.table)}</td>
              <td>{s.kind}</td>
              <td>{s.describe}</td>
              <td>
                <input
                  aria-label={`Name of the ${s.kind} relationship on ${tableKey(s.table)} (${s.describe})`}
                  value={name}
                  onChange={(e) => setNames({ ...names, [id]: e.target.value })}
                />
              </td>
              <td>
                <button
                  type="button"
                  className="btn small primary"
                  aria-label={`Add ${s.kind} relationship ${name} on ${tableKey(s.table)}`}
                  onClick={() =>
                    void run(`Adding ${name}…`, `Added the ${s.kind} relationship ${name} on ${tableKey(s.table)}`, async () => {
                      await callMetadata(`${operationPrefix(kind)}_create_${s.kind}_relationship`, { source, table: s.table, name, using: s.using });
                      await onChange();
                    })
                  }
                >
                  Add
                </button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
