/** A tracked table's role × operation matrix (none / partial / full per cell, new roles) and the open cell's editor. */
import { useState } from 'react';
import type { DbTable } from '../../introspect.ts';
import { knownRoles, tableKey, useMetadata, type SourceEntry, type TableEntry } from '../../metadata-state.tsx';
import { NewRoleForm } from '../../lists.tsx';
import { onTable, reasons } from '../../inconsistency.ts';
import type { RelationshipTarget } from './relationship-targets.ts';
import { MARK, OPERATIONS, permissionOf, summary, type Operation } from './operations.ts';
import { PermissionEditor } from './PermissionEditor.tsx';

export function TablePermissions({
  source,
  entry,
  dbTable,
  tables,
  relationships,
  onChange,
}: {
  source: SourceEntry;
  entry: TableEntry;
  dbTable: DbTable;
  /** The source's tracked tables, for `_exists` conditions, and their relationships' targets. */
  tables: readonly DbTable[];
  relationships: ReadonlyMap<string, readonly RelationshipTarget[]>;
  onChange: () => Promise<void>;
}) {
  const { metadata, inconsistencies } = useMetadata();
  const key = tableKey(entry.table);
  const problems = onTable(inconsistencies, source.name, key);
  const problemsOf = (role: string, op: Operation) => problems.filter((p) => p.operation === op && p.name === role);
  const [extraRoles, setExtraRoles] = useState<string[]>([]);
  const [open, setOpen] = useState<{ role: string; op: Operation } | null>(null);
  const roles = [...new Set([...knownRoles(metadata), ...extraRoles])].filter((r) => r !== 'admin').sort();
  return (
    <section aria-labelledby="perm-heading">
      <h1 id="perm-heading">Permissions of {key}</h1>
      <table className="grid matrix" aria-label={`Permissions of ${key}`}>
        <thead>
          <tr>
            <th scope="col">Role</th>
            {OPERATIONS.map((op) => (
              <th key={op} scope="col">
                {op}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">admin</th>
            {OPERATIONS.map((op) => (
              <td key={op}>{MARK.full}</td>
            ))}
          </tr>
          {roles.map((role) => (
            <tr key={role}>
              <th scope="row">{role}</th>
              {OPERATIONS.map((op) => {
                const bad = problemsOf(role, op);
                const s = bad.length > 0 ? 'inconsistent' : summary(permissionOf(entry, role, op), op, dbTable.columns.length);
                const isOpen = open?.role === role && open.op === op;
                return (
                  <td key={op}>
                    <button
                      type="button"
                      className={`btn small${isOpen ? ' primary' : ''}${bad.length > 0 ? ' cell-inconsistent' : ''}`}
                      title={bad.length > 0 ? reasons(bad) : undefined}
                      aria-label={`${op} permission of ${role}: ${s}`}
                      aria-expanded={isOpen}
                      onClick={() => setOpen(isOpen ? null : { role, op })}
                    >
                      {MARK[s]}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <NewRoleForm id="new-role" onAdd={(r) => setExtraRoles([...extraRoles, r])} />
      {open !== null && (
        <PermissionEditor
          key={`${open.role}/${open.op}`}
          source={source.name}
          kind={source.kind}
          entry={entry}
          dbTable={dbTable}
          tables={tables}
          relationships={relationships}
          role={open.role}
          op={open.op}
          problems={problemsOf(open.role, open.op)}
          onSaved={onChange}
          onClose={() => setOpen(null)}
        />
      )}
    </section>
  );
}
