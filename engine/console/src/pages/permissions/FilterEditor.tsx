/**
 * A boolean expression (a permission's row filter or check) edited two ways:
 * a builder of conditions (column conditions, `_and`, `_or`, `_not`,
 * `_exists` on another table of the source, and relationship conditions,
 * nested at will: ./ConditionGroup.tsx) and the raw JSON, which can say anything
 * the engine accepts. The JSON is the value. The builder keeps its own tree with
 * each value as typed (Note [Typed text becomes a value once] in
 * ../introspect.ts) and writes the JSON from it on every change; it reads its
 * tree from the JSON only when the JSON changed otherwise (typed as JSON,
 * cleared, first shown), and only when writing that tree gives the same JSON
 * back (Note [The builder shows only what it writes back] in
 * ./bool-exp.ts).
 */
import { useState } from 'react';
import type { TableNameInput } from '../../../../model/document.ts';
import type { DbColumn, DbTable } from '../../introspect.ts';
import { qualifiedText } from '../../source-kinds.ts';
import { readGroup, writeGroup, type Group, type Scope, type ScopeOf } from './bool-exp.ts';
import { ConditionGroup } from './ConditionGroup.tsx';
import type { RelationshipTarget } from './relationship-targets.ts';

function readTree(json: string, scope: Scope, scopeOf: ScopeOf): Group | null {
  try {
    return readGroup(JSON.parse(json === '' ? '{}' : json), scope, scopeOf);
  } catch {
    return null;
  }
}

/**
 * `onChange` gets the JSON and, when a condition's value is not a value of its column's type (or an
 * `_exists` has no table yet), the problem (the caller refuses to save while there is one).
 */
export function FilterEditor({
  id,
  label,
  value,
  onChange,
  columns,
  table,
  kind,
  tables,
  relationships,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (json: string, problem: string | null) => void;
  columns: readonly DbColumn[];
  /** The table's key (`schema.name`). */
  table: string;
  /** The source's kind and tracked tables, for `_exists`, and their relationships with their targets. */
  kind: string;
  tables: readonly DbTable[];
  relationships: ReadonlyMap<string, readonly RelationshipTarget[]>;
}) {
  const byKey = (key: string): Scope | undefined => {
    const t = tables.find((x) => `${x.schema}.${x.name}` === key);
    return t === undefined
      ? undefined
      : { columns: t.columns, relationships: (relationships.get(key) ?? []).map((r) => ({ name: r.name, target: () => byKey(r.target) })) };
  };
  const scopeOf: ScopeOf = (t: TableNameInput) => {
    const key = qualifiedText(kind, t);
    return key === null ? undefined : byKey(key);
  };
  const root: Scope = byKey(table) ?? { columns, relationships: [] };
  const [mode, setMode] = useState<'builder' | 'json'>('builder');
  // The builder's tree and the JSON it was read from or wrote: read again only when the JSON differs.
  const [builder, setBuilder] = useState(() => ({ json: value, tree: readTree(value, root, scopeOf) }));
  let current = builder;
  if (builder.json !== value) {
    current = { json: value, tree: readTree(value, root, scopeOf) };
    setBuilder(current);
  }
  let parseError: string | null = null;
  try {
    JSON.parse(value === '' ? '{}' : value);
  } catch (e) {
    parseError = e instanceof Error ? e.message : String(e);
  }
  const tree = current.tree;
  const setTree = (next: Group) => {
    const { value: v, problem } = writeGroup(next, root, scopeOf);
    const json = JSON.stringify(v);
    setBuilder({ json, tree: next });
    onChange(json, problem);
  };
  return (
    <fieldset>
      <legend>{label}</legend>
      <div className="row" role="group" aria-label={`${label}: editor`}>
        <label>
          <input type="radio" name={`${id}-mode`} checked={mode === 'builder'} onChange={() => setMode('builder')} /> Builder
        </label>
        <label>
          <input type="radio" name={`${id}-mode`} checked={mode === 'json'} onChange={() => setMode('json')} /> JSON
        </label>
        <button type="button" className="btn small" onClick={() => onChange('{}', null)}>
          Without any checks
        </button>
      </div>
      {mode === 'builder' &&
        (tree === null ? (
          <p className="muted">
            The builder cannot show this expression as it is (a column, relationship, operator or table it does not know, or a value it would write
            differently): edit it as JSON.
          </p>
        ) : (
          <ConditionGroup
            ctx={{ label, id, kind, tables, scopeOf }}
            place=""
            items={tree.items}
            scope={root}
            onChange={(items) => setTree({ ...tree, items })}
          />
        ))}
      <div className="field">
        <label htmlFor={`${id}-json`}>{label} (JSON)</label>
        <textarea
          id={`${id}-json`}
          rows={mode === 'json' ? 8 : 3}
          value={value}
          readOnly={mode !== 'json'}
          spellCheck={false}
          onChange={(e) => onChange(e.target.value, null)}
        />
        {parseError !== null && (
          <span className="error" role="alert">
            Not JSON: {parseError}
          </span>
        )}
      </div>
    </fieldset>
  );
}
