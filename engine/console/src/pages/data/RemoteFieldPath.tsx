/**
 * The remote schema side of a remote relationship: the remote, then the path
 * of fields from its query root (each step a field of the type the one above
 * returns), and per field its arguments, each from a column of the row or a
 * value as typed.
 */
import { getNamedType, isInterfaceType, isObjectType, type GraphQLField, type GraphQLSchema } from 'graphql';
import type { DbColumn } from '../../introspect.ts';
import type { ArgValue, PathStep, RemoteSchemaForm } from './remote-relationship.ts';

/** The field a step names, in the type the step above returns (the query root for the first). */
export function stepField(schema: GraphQLSchema, steps: readonly PathStep[], i: number): GraphQLField<unknown, unknown> | undefined {
  const parent = parentType(schema, steps, i);
  return parent?.getFields()[steps[i]?.field ?? ''];
}

function parentType(schema: GraphQLSchema, steps: readonly PathStep[], i: number) {
  if (i === 0) return schema.getQueryType() ?? undefined;
  const above = stepField(schema, steps, i - 1);
  const t = above === undefined ? undefined : getNamedType(above.type);
  return t !== undefined && (isObjectType(t) || isInterfaceType(t)) ? t : undefined;
}

function argKey(v: ArgValue | undefined): string {
  return v === undefined ? '' : v.from === 'column' ? `column:${v.column}` : 'value';
}

export function RemoteFieldPath({
  value,
  onChange,
  remotes,
  schema,
  schemaError,
  columns,
}: {
  value: RemoteSchemaForm;
  onChange: (f: RemoteSchemaForm) => void;
  remotes: readonly string[];
  /** The picked remote's schema as the engine shows it; null while it loads. */
  schema: GraphQLSchema | null;
  schemaError: string | null;
  columns: readonly DbColumn[];
}) {
  const steps = value.steps;
  const setStep = (i: number, step: PathStep | null) =>
    onChange({ ...value, steps: [...steps.slice(0, i), ...(step === null ? [] : [step]), ...steps.slice(i + 1)] });
  // One select per step, and one more while the last field returns an object (to go deeper).
  const shown = schema === null ? [] : [...steps.keys(), ...(parentType(schema, steps, steps.length) !== undefined ? [steps.length] : [])];
  return (
    <fieldset>
      <legend>Remote schema field</legend>
      <div className="row">
        <label htmlFor="rr-remote">Remote schema</label>
        <select id="rr-remote" value={value.remote} onChange={(e) => onChange({ remote: e.target.value, steps: [], lhs: [] })}>
          <option value="">(pick one)</option>
          {remotes.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      {value.remote !== '' && schema === null && schemaError === null && <p className="muted">Reading the remote schema…</p>}
      {schemaError !== null && (
        <p className="error" role="alert">
          {schemaError}
        </p>
      )}
      {schema !== null &&
        shown.map((i) => {
          const parent = parentType(schema, steps, i);
          const step = steps[i];
          const field = step === undefined ? undefined : stepField(schema, steps, i);
          return (
            <div key={i} className={i === 0 ? '' : 'bool-group'}>
              <div className="row">
                <label htmlFor={`rr-field-${i}`}>{i === 0 ? 'Field' : `Field of ${steps[i - 1]?.field ?? ''}`}</label>
                <select
                  id={`rr-field-${i}`}
                  aria-label={`Remote field ${i + 1}`}
                  value={step?.field ?? ''}
                  onChange={(e) => setStep(i, e.target.value === '' ? null : { field: e.target.value, args: {} })}
                >
                  <option value="">{i === 0 ? '(pick a field)' : '(join the field above)'}</option>
                  {Object.values(parent?.getFields() ?? {}).map((f) => (
                    <option key={f.name} value={f.name}>
                      {f.name}: {f.type.toString()}
                    </option>
                  ))}
                </select>
              </div>
              {step !== undefined &&
                field !== undefined &&
                field.args.map((a) => {
                  const v = step.args[a.name];
                  const name = `Remote field ${i + 1} argument ${a.name}`;
                  return (
                    <div className="row" key={a.name}>
                      <label htmlFor={`rr-arg-${i}-${a.name}`}>
                        {a.name}: {a.type.toString()}
                      </label>
                      <select
                        id={`rr-arg-${i}-${a.name}`}
                        aria-label={name}
                        value={argKey(v)}
                        onChange={(e) => {
                          const k = e.target.value;
                          const args = { ...step.args };
                          if (k === '') delete args[a.name];
                          else
                            args[a.name] =
                              k === 'value'
                                ? { from: 'value', text: v?.from === 'value' ? v.text : '' }
                                : { from: 'column', column: k.slice('column:'.length) };
                          setStep(i, { ...step, args });
                        }}
                      >
                        <option value="">(not passed)</option>
                        {columns.map((c) => (
                          <option key={c.name} value={`column:${c.name}`}>
                            column {c.name}
                          </option>
                        ))}
                        <option value="value">a value</option>
                      </select>
                      {v?.from === 'value' && (
                        <input
                          aria-label={`${name} value`}
                          value={v.text}
                          placeholder={getNamedType(a.type).name}
                          onChange={(e) => setStep(i, { ...step, args: { ...step.args, [a.name]: { from: 'value', text: e.target.value } } })}
                        />
                      )}
                    </div>
                  );
                })}
            </div>
          );
        })}
    </fieldset>
  );
}
