/**
 * One condition of the builder: a column condition (column, operator, value
 * as typed), an `_and` / `_or` group, a `_not`, an `_exists` (a table of the
 * source and the conditions its rows must meet, on that table's columns), or
 * a relationship (conditions on its target's rows).
 */
import type { TableNameInput } from '../../../../model/document.ts';
import { qualifiedText, wireTable } from '../../source-kinds.ts';
import { condValue, NO_SCOPE, OPS, targetScope, type BoolNode, type Scope } from './bool-exp.ts';
import { ConditionGroup, type BuilderContext } from './ConditionGroup.tsx';

export function ConditionNode({
  ctx,
  place,
  node,
  scope,
  onChange,
}: {
  ctx: BuilderContext;
  place: string;
  node: BoolNode;
  scope: Scope;
  /** The changed condition, or null to remove it. */
  onChange: (node: BoolNode | null) => void;
}) {
  const name = `${ctx.label} condition ${place}`;
  const remove = (
    <button type="button" className="btn small" aria-label={`Remove ${name}`} onClick={() => onChange(null)}>
      ×
    </button>
  );
  if (node.kind === 'column') {
    const p = condValue(
      scope.columns.find((c) => c.name === node.column),
      node.op,
      node.value,
    );
    const shown = !p.ok && node.left === true;
    const problemId = `${ctx.id}-problem-${place}`;
    return (
      <div className="row">
        <select aria-label={`${name} column`} value={node.column} onChange={(e) => onChange({ ...node, left: false, column: e.target.value })}>
          {scope.columns.map((col) => (
            <option key={col.name} value={col.name}>
              {col.name}
            </option>
          ))}
        </select>
        <select aria-label={`${name} operator`} value={node.op} onChange={(e) => onChange({ ...node, left: false, op: e.target.value })}>
          {OPS.map((op) => (
            <option key={op} value={op}>
              {op}
            </option>
          ))}
        </select>
        <input
          aria-label={`${name} value`}
          value={node.value}
          placeholder="value or X-Engine-User-Id"
          aria-invalid={!p.ok}
          aria-describedby={shown ? problemId : undefined}
          onChange={(e) => onChange({ ...node, left: false, value: e.target.value })}
          onBlur={() => onChange({ ...node, left: true })}
        />
        {remove}
        {shown && (
          <span id={problemId} className="error" role="alert">
            {p.problem}
          </span>
        )}
      </div>
    );
  }
  if (node.kind === 'any' || node.kind === 'all') {
    return (
      <div className="bool-node">
        <div className="row">
          <strong>{node.kind === 'any' ? '_or' : '_and'}</strong>
          <span className="muted">{node.kind === 'any' ? 'at least one of:' : 'all of:'}</span>
          {remove}
        </div>
        <ConditionGroup ctx={ctx} place={place} items={node.items} scope={scope} onChange={(items) => onChange({ ...node, items })} />
      </div>
    );
  }
  if (node.kind === 'not') {
    return (
      <div className="bool-node">
        <div className="row">
          <strong>_not</strong>
          <span className="muted">not all of these:</span>
          {remove}
        </div>
        <ConditionGroup
          ctx={ctx}
          place={place}
          items={node.body.items}
          scope={scope}
          onChange={(items) => onChange({ ...node, body: { ...node.body, items } })}
        />
      </div>
    );
  }
  if (node.kind === 'rel') {
    const target = node.name === '' ? undefined : (targetScope(scope, node.name) ?? NO_SCOPE);
    return (
      <div className="bool-node">
        <div className="row">
          <strong>relationship</strong>
          <select
            aria-label={`${name} relationship`}
            value={node.name}
            // Another relationship's target: its conditions start again.
            onChange={(e) => onChange({ ...node, name: e.target.value, body: { items: [], form: 'plain' } })}
          >
            <option value="">(pick a relationship)</option>
            {scope.relationships.map((r) => (
              <option key={r.name} value={r.name}>
                {r.name}
              </option>
            ))}
          </select>
          <span className="muted">{node.name === '' ? '' : 'has a row where:'}</span>
          {remove}
        </div>
        {target !== undefined && (
          <ConditionGroup
            ctx={ctx}
            place={place}
            items={node.body.items}
            scope={target}
            onChange={(items) => onChange({ ...node, body: { ...node.body, items } })}
          />
        )}
      </div>
    );
  }
  const picked = node.table === null ? '' : (qualifiedText(ctx.kind, node.table) ?? '');
  const table = ctx.tables.find((t) => `${t.schema}.${t.name}` === picked);
  const tableScope = node.table === null ? undefined : ctx.scopeOf(node.table);
  return (
    <div className="bool-node">
      <div className="row">
        <strong>_exists</strong>
        <span className="muted">a row of</span>
        <select
          aria-label={`${name} table`}
          value={picked}
          onChange={(e) => {
            const t = ctx.tables.find((x) => `${x.schema}.${x.name}` === e.target.value);
            // Another table's columns: its conditions start again.
            onChange({ ...node, table: t === undefined ? null : (wireTable(ctx.kind, t) as TableNameInput), body: { items: [], form: 'plain' } });
          }}
        >
          <option value="">(pick a table)</option>
          {ctx.tables.map((t) => (
            <option key={`${t.schema}.${t.name}`} value={`${t.schema}.${t.name}`}>
              {t.schema}.{t.name}
            </option>
          ))}
        </select>
        <span className="muted">where:</span>
        {remove}
      </div>
      {table !== undefined && tableScope !== undefined && (
        <ConditionGroup
          ctx={ctx}
          place={place}
          items={node.body.items}
          scope={tableScope}
          onChange={(items) => onChange({ ...node, body: { ...node.body, items } })}
        />
      )}
    </div>
  );
}
