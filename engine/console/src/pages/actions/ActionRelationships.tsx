/**
 * The relationships of an action's output type to tables (v2's custom object type
 * `relationships`: `{name, type: object | array, source, remote_table, field_mapping}`): list,
 * add, edit, delete. They live in the custom types, so each change is one `set_custom_types` of
 * the whole set with this object's relationships replaced; the engine checks the fields, table and
 * columns, and a refused change leaves the types as they were.
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { ConfirmButton, DataTable } from '../../lists.tsx';
import { tableKey, useMetadata, type CustomTypes } from '../../metadata-state.tsx';
import { qualifiedName } from '../../source-kinds.ts';
import { ActionRelationshipForm } from './ActionRelationshipForm.tsx';

/** One relationship of an object type, as metadata writes it. */
export interface ObjectRelationship {
  readonly name: string;
  readonly type: 'object' | 'array';
  readonly source?: string;
  readonly remote_table: unknown;
  readonly field_mapping: Readonly<Record<string, string>>;
}

/** The named type of a GraphQL type reference (`[Out!]!` → `Out`). */
export function baseTypeName(type: string): string {
  return type.replace(/[[\]!\s]/g, '');
}

function relationshipsOf(types: CustomTypes, object: string): ObjectRelationship[] {
  return [...((types.objects ?? []).find((o) => o.name === object)?.relationships ?? [])];
}

/** The custom types with `object`'s relationships replaced (the key left out when there are none). */
function withRelationships(types: CustomTypes, object: string, relationships: readonly ObjectRelationship[]): CustomTypes {
  return {
    ...types,
    objects: (types.objects ?? []).map((o) => {
      if (o.name !== object) return o;
      const rest: Record<string, unknown> = { ...o };
      delete rest['relationships'];
      return (relationships.length === 0 ? rest : { ...rest, relationships }) as typeof o;
    }),
  };
}

export function ActionRelationships({ outputType }: { outputType: string }) {
  const { metadata, refresh } = useMetadata();
  const types = metadata?.custom_types ?? {};
  const object = (types.objects ?? []).find((o) => o.name === outputType);
  const relationships = relationshipsOf(types, outputType);
  const [editing, setEditing] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  // A new form after each save, so the next relationship starts empty.
  const [round, setRound] = useState(0);
  const [status, run] = useAction();
  if (object === undefined) return null;
  const save = async (next: ObjectRelationship[], okText: string): Promise<boolean> =>
    run('Saving…', okText, async () => {
      await callMetadata('set_custom_types', withRelationships(types, outputType, next));
      await refresh();
    });
  const sourceKind = (name: string | undefined) => metadata?.sources.find((s) => s.name === (name ?? 'default'))?.kind ?? 'postgres';
  const editingEntry = relationships.find((r) => r.name === editing);
  return (
    <section className="editor" aria-labelledby="action-rel-heading">
      <h2 id="action-rel-heading">Relationships of {outputType}</h2>
      <p className="muted">Join the action&apos;s output to rows of a table: each mapped field of {outputType} equals a column of the table.</p>
      <DataTable
        label={`Relationships of ${outputType}`}
        rows={relationships}
        empty="No relationships yet."
        rowKey={(r) => r.name}
        rowHeader={['Name', (r) => r.name]}
        columns={[
          ['Type', (r) => r.type],
          [
            'Table',
            (r) => {
              const t = qualifiedName(sourceKind(r.source), r.remote_table);
              return `${r.source ?? 'default'}: ${t === null ? '?' : tableKey(t)}`;
            },
          ],
          [
            'Mapping',
            (r) =>
              Object.entries(r.field_mapping)
                .map(([f, c]) => `${f} → ${c}`)
                .join(', '),
          ],
          [
            'Actions',
            (r) => (
              <div className="row">
                <button type="button" className="btn small" aria-label={`Edit relationship ${r.name}`} onClick={() => setEditing(r.name)}>
                  Edit
                </button>
                <ConfirmButton
                  small
                  confirming={confirm === r.name}
                  setConfirming={(asking) => setConfirm(asking ? r.name : null)}
                  ask="Delete"
                  askLabel={`Delete relationship ${r.name}`}
                  confirm={`Confirm delete of relationship ${r.name}`}
                  onConfirm={() => {
                    setConfirm(null);
                    if (editing === r.name) setEditing(null);
                    void save(
                      relationships.filter((x) => x.name !== r.name),
                      `Deleted relationship ${r.name}`,
                    );
                  }}
                />
              </div>
            ),
          ],
        ]}
      />
      <Status value={status} />
      <ActionRelationshipForm
        key={`${editing ?? '(new)'}:${round}`}
        fields={object.fields.filter((f) => !f.type.trim().startsWith('[')).map((f) => f.name)}
        existing={editingEntry ?? null}
        onCancel={() => setEditing(null)}
        onSave={async (r) => {
          const next = editingEntry === undefined ? [...relationships, r] : relationships.map((x) => (x.name === editingEntry.name ? r : x));
          if (await save(next, `Saved relationship ${r.name}`)) {
            setEditing(null);
            setRound((n) => n + 1);
          }
        }}
      />
    </section>
  );
}
