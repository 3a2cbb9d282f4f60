/** Per role a remote schema permission as SDL (replaced in one `bulk`), and its deletion. */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { knownRoles, useMetadata, type RemoteSchemaEntry } from '../../metadata-state.tsx';
import { NewRoleForm } from '../../lists.tsx';
import { remoteSdl } from './remote-sdl.ts';

export function RemotePermissions({ entry }: { entry: RemoteSchemaEntry }) {
  const { metadata, refresh } = useMetadata();
  const [status, run] = useAction();
  const [open, setOpen] = useState<string | null>(null);
  const [sdl, setSdl] = useState('');
  const [extra, setExtra] = useState<string[]>([]);
  const perms = entry.permissions ?? [];
  const roles = [...new Set([...knownRoles(metadata), ...extra])].filter((r) => r !== 'admin').sort();
  const edit = (role: string) =>
    void run('Loading…', '', async () => {
      const existing = perms.find((p) => p.role === role);
      // A new permission starts from the whole schema, to be cut down.
      setSdl(existing?.definition.schema ?? (await remoteSdl(entry.name)));
      setOpen(role);
    });
  return (
    <section aria-label={`Permissions of ${entry.name}`}>
      <p className="muted">
        Enforced when the engine runs with <code>ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS=true</code>; without it every role sees the whole remote
        schema, as in v2.
      </p>
      <Status value={status} />
      <table className="grid matrix" aria-label={`Remote schema permissions of ${entry.name}`}>
        <thead>
          <tr>
            <th scope="col">Role</th>
            <th scope="col">Permission</th>
          </tr>
        </thead>
        <tbody>
          {roles.map((role) => {
            const has = perms.some((p) => p.role === role);
            return (
              <tr key={role}>
                <th scope="row">{role}</th>
                <td>
                  <button
                    type="button"
                    className={`btn small${open === role ? ' primary' : ''}`}
                    aria-label={`Permission of ${role}: ${has ? 'partial schema' : 'none'}`}
                    onClick={() => edit(role)}
                  >
                    {has ? '◐ schema' : '—'}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <NewRoleForm id="rs-new-role" onAdd={(r) => setExtra([...extra, r])} />
      {open !== null && (
        <form
          className="editor"
          aria-label={`Remote schema permission of ${open}`}
          onSubmit={(e) => {
            e.preventDefault();
            void run('Saving…', `Saved the permission of ${open} on ${entry.name}`, async () => {
              const calls: unknown[] = [];
              if (perms.some((p) => p.role === open)) calls.push({ type: 'drop_remote_schema_permissions', args: { remote_schema: entry.name, role: open } });
              calls.push({ type: 'add_remote_schema_permissions', args: { remote_schema: entry.name, role: open, definition: { schema: sdl } } });
              await callMetadata('bulk', calls);
              await refresh();
            });
          }}
        >
          <h2>
            Permission of <em>{open}</em> on {entry.name}
          </h2>
          <div className="field">
            <label htmlFor="rs-perm-sdl">Schema the role may use (SDL; a subset of the remote schema, with optional @preset arguments)</label>
            <textarea id="rs-perm-sdl" className="wide" rows={14} spellCheck={false} value={sdl} onChange={(e) => setSdl(e.target.value)} />
          </div>
          <div className="row">
            <button type="submit" className="btn primary">
              Save permission
            </button>
            {perms.some((p) => p.role === open) && (
              <button
                type="button"
                className="btn danger"
                onClick={() =>
                  void run('Deleting…', `Deleted the permission of ${open} on ${entry.name}`, async () => {
                    await callMetadata('drop_remote_schema_permissions', { remote_schema: entry.name, role: open });
                    setOpen(null);
                    await refresh();
                  })
                }
              >
                Delete permission
              </button>
            )}
            <button type="button" className="btn" onClick={() => setOpen(null)}>
              Close
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
