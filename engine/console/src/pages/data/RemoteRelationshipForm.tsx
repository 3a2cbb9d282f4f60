/**
 * Adds or modifies one remote relationship of a table: its name (fixed once
 * created, as v2 has no rename) and its target, a remote schema's field or a
 * table of a source; saved with `<prefix>_create_remote_relationship` or
 * `<prefix>_update_remote_relationship`, which the engine checks (a field,
 * argument or column that does not fit is refused with its reason).
 */
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { useEffect, useState, type FormEvent } from 'react';
import { metadata as callMetadata, messageOf } from '../../api.ts';
import type { TableNameInput } from '../../../../model/document.ts';
import type { DbTable } from '../../introspect.ts';
import { tableKey, useMetadata, type SourceEntry, type TableEntry } from '../../metadata-state.tsx';
import { operationPrefix, wireTable } from '../../source-kinds.ts';
import { RemoteFieldPath, stepField } from './RemoteFieldPath.tsx';
import { SourceTableTarget } from './SourceTableTarget.tsx';
import { toRemoteSchema, toSource, type RelationshipForm } from './remote-relationship.ts';

type Run = (busy: string, ok: string, action: () => Promise<unknown>) => Promise<boolean>;

export function RemoteRelationshipForm({
  source,
  entry,
  dbTable,
  initial,
  editing,
  run,
  onSaved,
  onCancel,
}: {
  source: SourceEntry;
  entry: TableEntry;
  dbTable: DbTable;
  initial: RelationshipForm;
  /** The relationship's name when modifying one; null when adding. */
  editing: string | null;
  run: Run;
  onSaved: () => Promise<void>;
  onCancel: () => void;
}) {
  const { metadata } = useMetadata();
  const key = tableKey(entry.table);
  const [form, setForm] = useState(initial);
  const remote = form.remoteSchema.remote;
  const [schema, setSchema] = useState<{ remote: string; schema: GraphQLSchema } | { remote: string; error: string } | null>(null);
  useEffect(() => {
    if (remote === '') return;
    let live = true;
    callMetadata<{ data: IntrospectionQuery }>('introspect_remote_schema', { name: remote }).then(
      (r) => live && setSchema({ remote, schema: buildClientSchema(r.data) }),
      (e: unknown) => live && setSchema({ remote, error: `Could not read remote schema ${remote}: ${messageOf(e)}` }),
    );
    return () => {
      live = false;
    };
  }, [remote]);
  const current = schema !== null && schema.remote === remote ? schema : null;
  const gqlSchema = current !== null && 'schema' in current ? current.schema : null;
  const sources = metadata?.sources ?? [];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const name = editing ?? form.name.trim();
    void run(`Saving ${name}…`, `Saved the remote relationship ${name} on ${key}`, async () => {
      if (name === '') throw new Error('A remote relationship needs a name.');
      let definition;
      if (form.target === 'remote_schema') {
        const s = gqlSchema;
        definition = {
          to_remote_schema: toRemoteSchema(form.remoteSchema, (i, a) =>
            s === null ? undefined : stepField(s, form.remoteSchema.steps, i)?.args.find((x) => x.name === a)?.type,
          ),
        };
      } else {
        definition = {
          to_source: toSource(form.source, (src, k) => {
            const target = sources.find((x) => x.name === src);
            const t = target?.tables.find((x) => tableKey(x.table) === k);
            return target === undefined || t === undefined ? null : (wireTable(target.kind, t.table) as TableNameInput);
          }),
        };
      }
      await callMetadata(`${operationPrefix(source.kind)}_${editing === null ? 'create' : 'update'}_remote_relationship`, {
        source: source.name,
        table: entry.table,
        name,
        definition,
      });
      await onSaved();
    });
  };
  return (
    <form className="editor" aria-label={editing === null ? `Add a remote relationship to ${key}` : `Modify remote relationship ${editing}`} onSubmit={submit}>
      <h3>{editing === null ? 'Add a remote relationship' : `Modify remote relationship ${editing}`}</h3>
      <div className="row">
        {editing === null && (
          <>
            <label htmlFor="rr-name">Relationship name</label>
            <input id="rr-name" className="short" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
          </>
        )}
        <label>
          <input type="radio" name="rr-target" checked={form.target === 'remote_schema'} onChange={() => setForm({ ...form, target: 'remote_schema' })} /> To a
          remote schema
        </label>
        <label>
          <input type="radio" name="rr-target" checked={form.target === 'source'} onChange={() => setForm({ ...form, target: 'source' })} /> To a table of a
          source
        </label>
      </div>
      {form.target === 'remote_schema' ? (
        <RemoteFieldPath
          value={form.remoteSchema}
          onChange={(remoteSchema) => setForm({ ...form, remoteSchema })}
          remotes={(metadata?.remote_schemas ?? []).map((r) => r.name)}
          schema={gqlSchema}
          schemaError={current !== null && 'error' in current ? current.error : null}
          columns={dbTable.columns}
        />
      ) : (
        <SourceTableTarget value={form.source} onChange={(s) => setForm({ ...form, source: s })} sources={sources} columns={dbTable.columns} />
      )}
      <div className="row">
        <button type="submit" className="btn primary">
          {editing === null ? 'Add remote relationship' : 'Save remote relationship'}
        </button>
        {editing !== null && (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
