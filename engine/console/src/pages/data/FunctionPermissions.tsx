/**
 * Which roles may call a tracked function (`<prefix>_create_function_permission`,
 * `<prefix>_drop_function_permission`), per role the metadata knows or one
 * added here. As in v2, a role needs a select permission on the function's
 * return table first: the engine refuses otherwise and its reason is shown.
 * The permissions matter when the engine does not infer them
 * (`ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS=false`); otherwise every role
 * with that select permission may call the function.
 */
import { useEffect, useState } from 'react';
import type { FunctionMetadata } from '../../../../model/document.ts';
import { metadata as callMetadata, serverConfig } from '../../api.ts';
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
  // Whether the engine infers them (v2's console says so too): then these permissions wait.
  const [inferred, setInferred] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    serverConfig().then(
      (c) => live && setInferred(c.is_function_permissions_inferred),
      () => live && setInferred(null),
    );
    return () => {
      live = false;
    };
  }, []);
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
      {inferred === true ? (
        <p className="muted" role="note">
          This engine infers function permissions: every role with a select permission on the table the function returns may call it. The permissions below
          apply once <code>ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS</code> is false.
        </p>
      ) : (
        <p className="muted">A role may call the function once allowed here; it needs a select permission on the table the function returns first.</p>
      )}
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
