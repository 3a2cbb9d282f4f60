/**
 * A list of conditions that all hold (the builder's root, an `_and` / `_or`
 * group, the body of `_not`, of `_exists`'s `_where` or of a relationship),
 * with a control per kind of condition to add. Nested lists are indented
 * under their condition.
 */
import type { DbTable } from '../../introspect.ts';
import type { BoolNode, Scope, ScopeOf } from './bool-exp.ts';
import { placeOf } from './bool-exp.ts';
import { ConditionNode } from './ConditionNode.tsx';

/** What every level of one builder shares. */
export interface BuilderContext {
  /** The expression's name, the start of every control's label (`Row filter`). */
  readonly label: string;
  readonly id: string;
  /** The source's kind (how `_exists` names a table). */
  readonly kind: string;
  /** The source's tables, for `_exists`. */
  readonly tables: readonly DbTable[];
  readonly scopeOf: ScopeOf;
}

const ADD: ReadonlyArray<readonly [string, () => BoolNode]> = [
  ['condition', () => ({ kind: 'column', column: '', op: '_eq', value: '' })],
  ['_exists', () => ({ kind: 'exists', table: null, body: { items: [], form: 'plain' } })],
  ['_or', () => ({ kind: 'any', items: [] })],
  ['_and', () => ({ kind: 'all', items: [] })],
  ['_not', () => ({ kind: 'not', body: { items: [], form: 'plain' } })],
  ['relationship', () => ({ kind: 'rel', name: '', body: { items: [], form: 'plain' } })],
];

export function ConditionGroup({
  ctx,
  place,
  items,
  scope,
  onChange,
}: {
  ctx: BuilderContext;
  /** The place of the condition holding this list (`''` for the root). */
  place: string;
  items: readonly BoolNode[];
  /** What conditions of this list may name: the table's columns and relationships (or `_exists`'s table's, or a relationship's target's). */
  scope: Scope;
  onChange: (items: BoolNode[]) => void;
}) {
  const owner = place === '' ? ctx.label : `${ctx.label} condition ${place}`;
  return (
    <div className={place === '' ? 'bool-root' : 'bool-group'}>
      {items.length === 0 && <p className="muted">{place === '' ? 'No condition: every row.' : 'No condition yet (true).'}</p>}
      {items.map((n, i) => (
        <ConditionNode
          key={i}
          ctx={ctx}
          place={placeOf(place, i)}
          node={n}
          scope={scope}
          onChange={(next) => onChange(next === null ? items.filter((_, j) => j !== i) : items.map((x, j) => (j === i ? next : x)))}
        />
      ))}
      <div className="row" role="group" aria-label={`${owner}: add`}>
        {ADD.filter(([what]) => what !== 'relationship' || scope.relationships.length > 0).map(([what, make]) => {
          const node = make();
          const first = node.kind === 'column' ? { ...node, column: scope.columns[0]?.name ?? '' } : node;
          return (
            <button
              key={what}
              type="button"
              className="btn small"
              // The root's buttons read "Add condition", "Add _exists", …; nested ones say where they add.
              aria-label={place === '' ? undefined : `${owner}: add ${what}`}
              onClick={() => onChange([...items, first])}
            >
              Add {what}
            </button>
          );
        })}
      </div>
    </div>
  );
}
