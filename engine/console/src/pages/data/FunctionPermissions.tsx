/**
 * Which roles may call a tracked function (`<prefix>_create_function_permission`,
 * `<prefix>_drop_function_permission`), per role the metadata knows or one
 * added here. As in v2, a role needs a select permission on the function's
 * return table first: the engine refuses otherwise and its reason is shown.
 * The permissions matter when the engine does not infer them
 * (`ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false`); otherwise every role
 * with that select permission may call the function.
 */
import { useState } from 'react';
import type { FunctionMetadata } from '../../../../model/document.ts';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { NewRoleForm } from '../../lists.tsx';
import { knownRoles, useMetadata, type SourceEntry } from '../../metadata-state.tsx';
import { operationPrefix } from '../../source-kinds.ts';
import { functionKey } from './functions.ts';

export function FunctionPermissions({ source, fn, onChange }: { source: SourceEntry; fn: FunctionMetadata; onChange: () => Promise<void> }) {
  const { metadata } = useMetadata();
  const key = functionKey(source.kind, fn);
  const prefix = operationPrefix(source.kind);
  const [status, run] = useAction();
  const [extraRoles, setExtraRoles] = useState<string[]>([]);
  const allowed = new Set((fn.permissions ?? []).map((p) => p.role));
  const roles = [...new Set([...knownRoles(metadata), ...allowed, ...extraRoles])].filter((r) => r !== 'admin').sort();
  const toggle = (role: string) => {
    const allow = !allowed.has(role);
    void run(
      `${allow ? 'Allowing' : 'Revoking'} ${role}…`,
      allow ? `Role ${role} may call function ${key}` : `Role ${role} may no longer call function ${key}`,
      async () => {
        await callMetadata(`${prefix}_${allow ? 'create' : 'drop'}_function_permission`, { source: source.name, function: fn.function, role });
        await onChange();
      },
    );
  };
  return (
    <section className="editor" aria-labelledby="function-permissions-heading">
      <h2 id="function-permissions-heading">Permissions</h2>
      <p className="muted">
        A role may call the function once allowed here and given a select permission on the table the function returns (when the engine does not infer function
        permissions).
      </p>
      <Status value={status} />
      <table className="grid matrix" aria-label={`Permissions of function ${key}`}>
        <thead>
          <tr>
            <th scope="col">Role</th>
            <th scope="col">May call</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">admin</th>
            <td>✔ always</td>
            <td />
          </tr>
          {roles.map((role) => (
            <tr key={role}>
              <th scope="row">{role}</th>
              <td>{allowed.has(role) ? '✔ allowed' : '—'}</td>
              <td>
                <button
                  type="button"
                  className={`btn small${allowed.has(role) ? ' danger' : ' primary'}`}
                  aria-label={`${allowed.has(role) ? 'Revoke' : 'Allow'} role ${role} on function ${key}`}
                  onClick={() => toggle(role)}
                >
                  {allowed.has(role) ? 'Revoke' : 'Allow'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <NewRoleForm id="function-new-role" onAdd={(r) => setExtraRoles([...extraRoles, r])} />
    </section>
  );
}
