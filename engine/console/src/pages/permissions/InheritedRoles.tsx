/** Inherited roles: list, add, modify the roles one inherits from (one `bulk` of drop + add), drop. */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { knownRoles, useMetadata } from '../../metadata-state.tsx';

export function InheritedRoles() {
  const { metadata, refresh } = useMetadata();
  const [name, setName] = useState('');
  const [set, setSet] = useState<string[]>([]);
  /** The inherited role being modified, or null: the form adds one. */
  const [editing, setEditing] = useState<string | null>(null);
  const [status, run] = useAction();
  const inherited = metadata?.inherited_roles ?? [];
  // The roles it may inherit from: the other roles the metadata knows, and those it already has.
  const candidates = [...new Set([...knownRoles(metadata).filter((r) => !inherited.some((i) => i.role_name === r)), ...set])]
    .filter((r) => r !== editing)
    .sort();
  const reset = () => {
    setEditing(null);
    setName('');
    setSet([]);
  };
  return (
    <section aria-labelledby="inherited-heading">
      <h2 id="inherited-heading">Inherited roles</h2>
      <Status value={status} />
      {inherited.length === 0 ? (
        <p className="muted">No inherited roles.</p>
      ) : (
        <table className="grid" aria-label="Inherited roles">
          <tbody>
            {inherited.map((r) => (
              <tr key={r.role_name}>
                <th scope="row">{r.role_name}</th>
                <td>{r.role_set.join(', ')}</td>
                <td>
                  <button
                    type="button"
                    className="btn small"
                    aria-label={`Modify inherited role ${r.role_name}`}
                    onClick={() => {
                      setEditing(r.role_name);
                      setName(r.role_name);
                      setSet([...r.role_set]);
                    }}
                  >
                    Modify
                  </button>{' '}
                  <button
                    type="button"
                    className="btn small danger"
                    aria-label={`Drop inherited role ${r.role_name}`}
                    onClick={() =>
                      void run('Dropping…', `Dropped inherited role ${r.role_name}`, async () => {
                        await callMetadata('drop_inherited_role', { role_name: r.role_name });
                        if (editing === r.role_name) reset();
                        await refresh();
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
      <form
        className="editor"
        aria-label={editing === null ? 'Add an inherited role' : `Modify inherited role ${editing}`}
        onSubmit={(e) => {
          e.preventDefault();
          if (editing === null) {
            void run('Adding…', `Added inherited role ${name}`, async () => {
              await callMetadata('add_inherited_role', { role_name: name.trim(), role_set: set });
              reset();
              await refresh();
            });
            return;
          }
          // v2 has no update: drop and add again in one bulk, so a refused set leaves the old one.
          const role = editing;
          void run('Saving…', `Saved inherited role ${role}`, async () => {
            await callMetadata('bulk', [
              { type: 'drop_inherited_role', args: { role_name: role } },
              { type: 'add_inherited_role', args: { role_name: role, role_set: set } },
            ]);
            reset();
            await refresh();
          });
        }}
      >
        {editing === null && (
          <div className="field">
            <label htmlFor="inherited-name">Inherited role name</label>
            <input id="inherited-name" value={name} onChange={(e) => setName(e.target.value)} />
          </div>
        )}
        <fieldset>
          <legend>Inherits from</legend>
          <div className="columns-list">
            {candidates.map((r) => (
              <label key={r}>
                <input type="checkbox" checked={set.includes(r)} onChange={(e) => setSet(e.target.checked ? [...set, r] : set.filter((x) => x !== r))} /> {r}
              </label>
            ))}
          </div>
        </fieldset>
        <button type="submit" className="btn">
          {editing === null ? 'Add inherited role' : 'Save inherited role'}
        </button>
        {editing !== null && (
          <button type="button" className="btn" onClick={reset}>
            Cancel
          </button>
        )}
      </form>
    </section>
  );
}
