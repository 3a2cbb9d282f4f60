/** Name/value rows (query parameters, headers to add, form fields): `label` names the group and prefixes each control's name. */
import type { PairRow } from './transform-form.ts';

export function PairRows({
  label,
  rows,
  onChange,
  valuePlaceholder,
}: {
  label: string;
  rows: readonly PairRow[];
  onChange: (rows: PairRow[]) => void;
  valuePlaceholder: string;
}) {
  const set = (i: number, patch: Partial<PairRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset>
      <legend>{label}</legend>
      {rows.map((r, i) => (
        <div className="row" key={i}>
          <input aria-label={`${label} ${i + 1} name`} placeholder="name" size={14} value={r.name} onChange={(e) => set(i, { name: e.target.value })} />
          <input
            className="grow"
            aria-label={`${label} ${i + 1} value`}
            placeholder={valuePlaceholder}
            value={r.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <button
            type="button"
            className="btn small"
            aria-label={`Remove ${label.toLowerCase()} ${i + 1}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
          >
            ×
          </button>
        </div>
      ))}
      <button type="button" className="btn small" aria-label={`Add ${label.toLowerCase()}`} onClick={() => onChange([...rows, { name: '', value: '' }])}>
        Add
      </button>
    </fieldset>
  );
}
