/**
 * A tracked table's rows through the admin's GraphQL API: sort by a column,
 * filter with column/operator/value rows, pages of 10–100, and insert, edit
 * and delete by primary key. Values stay text as typed and are converted by
 * the column's type when used (introspect.ts `valueOf`: text that is not a
 * value of the type is refused with the reason); on edit, an emptied cell of
 * a nullable column becomes NULL.
 */
import { useCallback, useEffect, useState } from 'react';
import { graphql } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { display, valueOf, type DbTable } from '../../introspect.ts';
import { tableKey, type TableEntry } from '../../metadata-state.tsx';
import { columnFieldName, isGraphqlName, tableNames } from '../../naming.ts';

type Row = Record<string, unknown>;

interface Filter {
  column: string;
  op: string;
  value: string;
}

const OPS: ReadonlyArray<[string, string]> = [
  ['_eq', '='],
  ['_neq', '≠'],
  ['_gt', '>'],
  ['_gte', '≥'],
  ['_lt', '<'],
  ['_lte', '≤'],
  ['_like', 'like'],
  ['_ilike', 'ilike'],
  ['_in', 'in (a,b,…)'],
  ['_is_null', 'is null (true/false)'],
];

export function RowsGrid({ kind, entry, table }: { kind: string; entry: TableEntry; table: DbTable }) {
  const names = tableNames(entry, kind);
  const key = tableKey(entry.table);
  // Each column under its GraphQL field name (a custom name when it has one); one with no GraphQL name is not in the API.
  const columns = table.columns.map((c) => ({ ...c, field: columnFieldName(entry, c.name) })).filter((c) => isGraphqlName(c.field));
  const byName = new Map(columns.map((c) => [c.name, c]));
  const field = (column: string): string => byName.get(column)?.field ?? column;
  // Rows are edited and deleted by primary key: without one (or with a key column the API does not show) the grid is read-only, as in v2.
  const pk = table.primaryKey.every((c) => byName.has(c)) ? table.primaryKey : [];
  const [limit, setLimit] = useState(10);
  const [offset, setOffset] = useState(0);
  const [order, setOrder] = useState<{ column: string; dir: 'asc' | 'desc' } | null>(pk[0] !== undefined ? { column: pk[0], dir: 'asc' } : null);
  const [draftFilters, setDraftFilters] = useState<Filter[]>([]);
  const [filters, setFilters] = useState<Filter[]>([]);
  const [rows, setRows] = useState<Row[]>([]);
  const [count, setCount] = useState<number | null>(null);
  const [editing, setEditing] = useState<{ index: number; values: Record<string, string> } | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const [inserting, setInserting] = useState<Record<string, string> | null>(null);
  const [status, run] = useAction();
  /** Bumped to read the rows again with the same settings (the database may have changed). */
  const [tick, setTick] = useState(0);

  const where = useCallback((): Row => {
    const parts = filters.map((f, i) => {
      const col = byName.get(f.column);
      let value: unknown;
      try {
        if (f.op === '_is_null') value = valueOf({ name: f.column, type: 'boolean', nullable: false, hasDefault: false }, f.value);
        else if (f.op === '_in') value = f.value.trim() === '' ? [] : f.value.split(',').map((v) => valueOf(col, v.trim()));
        else value = valueOf(col, f.value);
      } catch (e) {
        throw new Error(`Filter ${i + 1}: ${e instanceof Error ? e.message : String(e)}`);
      }
      return { [field(f.column)]: { [f.op]: value } };
    });
    return parts.length === 0 ? {} : { _and: parts };
  }, [filters]);

  const load = useCallback(async () => {
    const fields = columns.map((c) => c.field).join(' ');
    const q = `query Rows($where: ${names.type}_bool_exp, $order: [${names.type}_order_by!], $limit: Int, $offset: Int) {
  rows: ${names.select}(where: $where, order_by: $order, limit: $limit, offset: $offset) { ${fields} }
  agg: ${names.aggregate}(where: $where) { aggregate { count } }
}`;
    const data = await graphql<{ rows: Row[]; agg: { aggregate: { count: number } } }>(q, {
      where: where(),
      order: order === null ? [] : [{ [field(order.column)]: order.dir }],
      limit,
      offset,
    });
    setRows(data.rows);
    setCount(data.agg.aggregate.count);
  }, [names.type, names.select, names.aggregate, where, order, limit, offset, columns.length, tick]);

  useEffect(() => {
    void run('Loading rows…', '', load).then((ok) => {
      if (ok) setEditing(null);
    });
  }, [load]);

  const pkWhere = (row: Row): Row => ({ _and: pk.map((c) => ({ [field(c)]: { _eq: row[field(c)] } })) });

  const save = (index: number) => {
    if (editing === null) return;
    const row = rows[index]!;
    const values = editing.values;
    void run(`Saving row ${index + 1}…`, `Saved row ${index + 1}`, async () => {
      const set: Row = {};
      for (const c of columns) {
        const text = values[c.name];
        if (text === undefined || text === display(row[c.field])) continue;
        set[c.field] = text === '' && c.nullable ? null : valueOf(c, text);
      }
      if (Object.keys(set).length > 0) {
        await graphql(
          `mutation Update($where: ${names.type}_bool_exp!, $set: ${names.type}_set_input) { ${names.update}(where: $where, _set: $set) { affected_rows } }`,
          {
            where: pkWhere(row),
            set,
          },
        );
      }
      setEditing(null);
      await load();
    });
  };

  const remove = (index: number) => {
    const row = rows[index]!;
    void run(`Deleting row ${index + 1}…`, `Deleted row ${index + 1}`, async () => {
      await graphql(`mutation Delete($where: ${names.type}_bool_exp!) { ${names.delete}(where: $where) { affected_rows } }`, { where: pkWhere(row) });
      setConfirming(null);
      await load();
    });
  };

  const insert = () => {
    if (inserting === null) return;
    const values = inserting;
    void run('Inserting…', 'Inserted a row', async () => {
      const object: Row = {};
      for (const c of columns) {
        const text = values[c.name] ?? '';
        if (text !== '') object[c.field] = valueOf(c, text);
      }
      await graphql(`mutation Insert($objects: [${names.type}_insert_input!]!) { ${names.insert}(objects: $objects) { affected_rows } }`, {
        objects: [object],
      });
      setInserting(null);
      await load();
    });
  };

  const sortBy = (column: string) => {
    setOffset(0);
    setOrder(order?.column === column ? { column, dir: order.dir === 'asc' ? 'desc' : 'asc' } : { column, dir: 'asc' });
  };

  return (
    <div className="rows">
      <fieldset aria-label="Filters">
        <legend>Filter rows</legend>
        {draftFilters.map((f, i) => (
          <div className="row" key={i}>
            <select
              aria-label={`Filter ${i + 1} column`}
              value={f.column}
              onChange={(e) => setDraftFilters(draftFilters.map((x, j) => (j === i ? { ...x, column: e.target.value } : x)))}
            >
              {columns.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name}
                </option>
              ))}
            </select>
            <select
              aria-label={`Filter ${i + 1} operator`}
              value={f.op}
              onChange={(e) => setDraftFilters(draftFilters.map((x, j) => (j === i ? { ...x, op: e.target.value } : x)))}
            >
              {OPS.map(([op, label]) => (
                <option key={op} value={op}>
                  {label}
                </option>
              ))}
            </select>
            <input
              aria-label={`Filter ${i + 1} value`}
              value={f.value}
              onChange={(e) => setDraftFilters(draftFilters.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
            />
            <button
              type="button"
              className="btn small"
              aria-label={`Remove filter ${i + 1}`}
              onClick={() => setDraftFilters(draftFilters.filter((_, j) => j !== i))}
            >
              ×
            </button>
          </div>
        ))}
        <div className="row">
          <button
            type="button"
            className="btn small"
            onClick={() => setDraftFilters([...draftFilters, { column: columns[0]?.name ?? '', op: '_eq', value: '' }])}
          >
            Add filter
          </button>
          <button
            type="button"
            className="btn small primary"
            onClick={() => {
              setOffset(0);
              setFilters([...draftFilters]);
            }}
          >
            Apply filters
          </button>
          <button type="button" className="btn small" onClick={() => setTick(tick + 1)}>
            Refresh rows
          </button>
          <button type="button" className="btn small" onClick={() => setInserting(inserting === null ? {} : null)}>
            {inserting === null ? 'Insert row' : 'Cancel insert'}
          </button>
        </div>
      </fieldset>
      {inserting !== null && (
        <form
          className="editor"
          aria-label={`Insert a row into ${key}`}
          onSubmit={(e) => {
            e.preventDefault();
            insert();
          }}
        >
          {columns.map((c) => (
            <div className="field" key={c.name}>
              <label htmlFor={`insert-${c.name}`}>
                {c.name}{' '}
                <span className="muted">
                  ({c.type}
                  {c.hasDefault ? ', has a default' : ''}
                  {c.nullable ? ', nullable' : ''})
                </span>
              </label>
              <input
                id={`insert-${c.name}`}
                value={inserting[c.name] ?? ''}
                placeholder={c.hasDefault ? 'default' : ''}
                onChange={(e) => setInserting({ ...inserting, [c.name]: e.target.value })}
              />
            </div>
          ))}
          <button type="submit" className="btn primary">
            Save new row
          </button>
        </form>
      )}
      <Status value={status} />
      <table className="grid" aria-label={`Rows of ${key}`}>
        <thead>
          <tr>
            {/* Row actions first, as v2: with many columns the last one starts off screen. */}
            <th scope="col" className="row-actions">
              Actions
            </th>
            {columns.map((c) => (
              <th key={c.name} scope="col" aria-sort={order?.column === c.name ? (order.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
                <button type="button" className="sort" aria-label={`Sort by ${c.name}`} onClick={() => sortBy(c.name)}>
                  {c.name}
                  {c.field !== c.name && <span className="muted"> as {c.field}</span>} {order?.column === c.name ? (order.dir === 'asc' ? '▲' : '▼') : ''}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={pk.length > 0 ? pk.map((c) => display(row[field(c)])).join('|') : i}>
              <td className="row-actions">
                {pk.length === 0 ? (
                  <span className="muted" title="Rows are edited and deleted by primary key">
                    read-only: no primary key
                  </span>
                ) : editing?.index === i ? (
                  <>
                    <button type="button" className="btn small primary" onClick={() => save(i)}>
                      Save row {i + 1}
                    </button>{' '}
                    <button type="button" className="btn small" onClick={() => setEditing(null)}>
                      Cancel
                    </button>
                  </>
                ) : confirming === i ? (
                  <>
                    <button type="button" className="btn small danger" onClick={() => remove(i)}>
                      Confirm delete of row {i + 1}
                    </button>{' '}
                    <button type="button" className="btn small" onClick={() => setConfirming(null)}>
                      Keep
                    </button>
                  </>
                ) : (
                  <>
                    <button
                      type="button"
                      className="btn small"
                      aria-label={`Edit row ${i + 1}`}
                      onClick={() =>
                        setEditing({ index: i, values: Object.fromEntries(columns.map((c) => [c.name, row[c.field] === null ? '' : display(row[c.field])])) })
                      }
                    >
                      Edit
                    </button>{' '}
                    <button type="button" className="btn small danger" aria-label={`Delete row ${i + 1}`} onClick={() => setConfirming(i)}>
                      Delete
                    </button>
                  </>
                )}
              </td>
              {columns.map((c) =>
                editing?.index === i ? (
                  <td key={c.name}>
                    <input
                      aria-label={`${c.name} of row ${i + 1}`}
                      value={editing.values[c.name] ?? ''}
                      onChange={(e) => setEditing({ index: i, values: { ...editing.values, [c.name]: e.target.value } })}
                    />
                  </td>
                ) : (
                  <td key={c.name} className={row[c.field] === null ? 'null' : undefined}>
                    {display(row[c.field])}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row pager">
        <button type="button" className="btn small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - limit))}>
          Previous page
        </button>
        <span aria-live="polite">{count === null ? '' : count === 0 ? 'No rows' : `Rows ${offset + 1}–${Math.min(offset + limit, count)} of ${count}`}</span>
        <button type="button" className="btn small" disabled={count === null || offset + limit >= count} onClick={() => setOffset(offset + limit)}>
          Next page
        </button>
        <label>
          Rows per page{' '}
          <select
            value={limit}
            onChange={(e) => {
              setOffset(0);
              setLimit(Number(e.target.value));
            }}
          >
            {[10, 25, 50, 100].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </div>
    </div>
  );
}
