/** The scope of an allow-list entry: the fields and what they say (`{global}` or `{global: false, roles}`). */

/** The scope editor of an allow-list entry: every role, or the roles listed. */
export function ScopeFields({ global, roles, onChange }: { global: boolean; roles: string; onChange: (global: boolean, roles: string) => void }) {
  return (
    <div className="row">
      <label>
        <input type="radio" name="allow-scope" checked={global} onChange={() => onChange(true, roles)} /> for every role
      </label>
      <label>
        <input type="radio" name="allow-scope" checked={!global} onChange={() => onChange(false, roles)} /> for these roles only
      </label>
      <label htmlFor="allow-roles" className="visually-hidden">
        Allowed roles (comma-separated)
      </label>
      <input id="allow-roles" placeholder="user, editor" disabled={global} value={roles} onChange={(e) => onChange(global, e.target.value)} />
    </div>
  );
}

export function scopeOf(global: boolean, roles: string): { global: boolean; roles?: string[] } {
  if (global) return { global: true };
  const list = [...new Set(roles.split(',').map((r) => r.trim()))].filter((r) => r !== '');
  if (list.length === 0) throw new Error('Name at least one role, or allow the collection for every role');
  return { global: false, roles: list };
}
