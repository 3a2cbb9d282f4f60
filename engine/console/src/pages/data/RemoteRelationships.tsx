/**
 * A table's remote relationships, on its Relationships tab below the local
 * ones: the list (name, target, what it joins), modify and delete
 * (`<prefix>_delete_remote_relationship`), and the form that adds or
 * modifies one (./RemoteRelationshipForm.tsx).
 */
import { useState } from 'react';
import type { RemoteFieldLevel, RemoteRelationshipMetadata, TableNameInput } from '../../../../model/document.ts';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import type { DbTable } from '../../introspect.ts';
import { ConfirmButton } from '../../lists.tsx';
import { tableKey, useMetadata, type SourceEntry, type TableEntry } from '../../metadata-state.tsx';
import { operationPrefix, qualifiedText } from '../../source-kinds.ts';
import { RemoteRelationshipForm } from './RemoteRelationshipForm.tsx';
import { EMPTY_FORM, formOf } from './remote-relationship.ts';

function pathText(level: RemoteFieldLevel | undefined): string {
  const [field, spec] = Object.entries(level ?? {})[0] ?? [];
  if (field === undefined || spec === undefined) return '';
  const args = Object.entries(spec.arguments ?? {}).map(([a, v]) => `${a}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const next = pathText(spec.field);
  return `${field}${args.length > 0 ? `(${args.join(', ')})` : ''}${next !== '' ? ` { ${next} }` : ''}`;
}

/** What a relationship joins, in a line. */
function describe(rel: RemoteRelationshipMetadata, kindOf: (source: string) => string): { target: string; joins: string } {
  const def = rel.definition ?? {};
  if (def.to_source !== undefined) {
    const s = def.to_source;
    const src = s.source ?? 'default';
    return {
      target: `source ${src}: ${qualifiedText(kindOf(src), s.table) ?? JSON.stringify(s.table)} (${s.relationship_type})`,
      joins: Object.entries(s.field_mapping)
        .map(([a, b]) => `${a} → ${b}`)
        .join(', '),
    };
  }
  const r = def.to_remote_schema ?? { remote_schema: def.remote_schema ?? '', remote_field: def.remote_field ?? {} };
  return { target: `remote schema ${r.remote_schema}`, joins: pathText(r.remote_field) };
}

export function RemoteRelationships({
  source,
  entry,
  dbTable,
  onChange,
}: {
  source: SourceEntry;
  entry: TableEntry;
  dbTable: DbTable;
  onChange: () => Promise<void>;
}) {
  const { metadata } = useMetadata();
  const key = tableKey(entry.table);
  const rels = ((entry as { remote_relationships?: readonly RemoteRelationshipMetadata[] }).remote_relationships ??
    []) as readonly RemoteRelationshipMetadata[];
  const [status, run] = useAction();
  const [editing, setEditing] = useState<string | null>(null);
  // A new form after each save: the add form starts empty again.
  const [generation, setGeneration] = useState(0);
  const [confirming, setConfirming] = useState<string | null>(null);
  const sources = metadata?.sources ?? [];
  const kindOf = (s: string) => sources.find((x) => x.name === s)?.kind ?? 'postgres';
  const tableKeyOf = (s: string, t: TableNameInput) => qualifiedText(kindOf(s), t) ?? '';
  const edited = rels.find((r) => r.name === editing);
  const saved = async () => {
    setEditing(null);
    setGeneration((g) => g + 1);
    await onChange();
  };
  return (
    <section aria-labelledby="remote-rel-heading">
      <h2 id="remote-rel-heading">Remote relationships</h2>
      <Status value={status} />
      {rels.length === 0 ? (
        <p className="muted">No remote relationships.</p>
      ) : (
        <table className="grid" aria-label={`Remote relationships of ${key}`}>
          <thead>
            <tr>
              <th scope="col">Actions</th>
              <th scope="col">Name</th>
              <th scope="col">Target</th>
              <th scope="col">Joins</th>
            </tr>
          </thead>
          <tbody>
            {rels.map((r) => {
              const d = describe(r, kindOf);
              return (
                <tr key={r.name}>
                  <td className="row-actions">
                    <button type="button" className="btn small" aria-label={`Modify remote relationship ${r.name}`} onClick={() => setEditing(r.name)}>
                      Modify
                    </button>{' '}
                    <ConfirmButton
                      small
                      confirming={confirming === r.name}
                      setConfirming={(asking) => setConfirming(asking ? r.name : null)}
                      ask="Delete"
                      askLabel={`Delete remote relationship ${r.name}`}
                      confirm={`Confirm delete of ${r.name}`}
                      onConfirm={() =>
                        void run(`Deleting ${r.name}…`, `Deleted the remote relationship ${r.name}`, async () => {
                          await callMetadata(`${operationPrefix(source.kind)}_delete_remote_relationship`, {
                            source: source.name,
                            table: entry.table,
                            name: r.name,
                          });
                          setConfirming(null);
                          if (editing === r.name) setEditing(null);
                          await onChange();
                        })
                      }
                    />
                  </td>
                  <th scope="row">{r.name}</th>
                  <td>{d.target}</td>
                  <td>
                    <code>{d.joins}</code>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {edited !== undefined ? (
        <RemoteRelationshipForm
          key={`edit:${edited.name}`}
          source={source}
          entry={entry}
          dbTable={dbTable}
          initial={formOf(edited, tableKeyOf)}
          editing={edited.name}
          run={run}
          onSaved={saved}
          onCancel={() => setEditing(null)}
        />
      ) : (
        <RemoteRelationshipForm
          key={`new:${generation}`}
          source={source}
          entry={entry}
          dbTable={dbTable}
          initial={EMPTY_FORM}
          editing={null}
          run={run}
          onSaved={saved}
          onCancel={() => setEditing(null)}
        />
      )}
    </section>
  );
}
