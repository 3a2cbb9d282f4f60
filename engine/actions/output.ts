/**
 * A handler's output checked against the action's output type, then cut to
 * the client's selection (aliases, `__typename`), leaving slots where
 * relationship fields go.
 *
 * Note [Output checks]: as v2, the output must fit the type: null only where
 * the type is nullable, lists where it is a list, an object for an object
 * type, built-in scalars of their JSON kind and enum values among the enum's.
 * Custom and database scalars take any JSON. Fields the type lacks are
 * accepted and never answered (the selection only reads the type's fields),
 * as v2 since its tests-py mirror_action_unexpected_field.yaml. A misfit is an
 * `unexpected` error naming the path inside the output.
 */
import type * as ir from '../ir/index.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { CustomTypesInfo, TypeRef } from './types.ts';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function misfit(action: string, at: string, what: string, value: unknown): EngineError {
  return new EngineError(ErrorCode.Unexpected, `the response of the action handler of "${action}" does not fit its output type: ${what} at ${at}`, {
    status: 200,
    internal: { path: at, value },
  });
}

/** Checks `value` against `type` (Note [Output checks]); throws an `unexpected` EngineError. */
export function checkOutput(action: string, value: unknown, type: TypeRef, types: CustomTypesInfo, at = 'output'): void {
  if (value === null || value === undefined) {
    if (type.nonNull) throw misfit(action, at, 'null where a value is required', null);
    return;
  }
  if (type.kind === 'list') {
    if (!Array.isArray(value)) throw misfit(action, at, 'expected a list', value);
    value.forEach((v, i) => checkOutput(action, v, type.of, types, `${at}[${i}]`));
    return;
  }
  const name = type.name;
  switch (name) {
    case 'Int':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw misfit(action, at, 'expected an Int', value);
      return;
    case 'Float':
      if (typeof value !== 'number') throw misfit(action, at, 'expected a Float', value);
      return;
    case 'String':
      if (typeof value !== 'string') throw misfit(action, at, 'expected a String', value);
      return;
    case 'Boolean':
      if (typeof value !== 'boolean') throw misfit(action, at, 'expected a Boolean', value);
      return;
    case 'ID':
      if (typeof value !== 'string' && typeof value !== 'number') throw misfit(action, at, 'expected an ID', value);
      return;
  }
  const en = types.enums.get(name);
  if (en !== undefined) {
    if (typeof value !== 'string' || !en.values.some((v) => v.value === value)) throw misfit(action, at, `expected a value of the enum ${name}`, value);
    return;
  }
  const object = types.objects.get(name);
  if (object === undefined) return; // a custom or database scalar: any JSON
  if (!isObject(value)) throw misfit(action, at, `expected an object of type ${name}`, value);
  for (const f of object.fields) checkOutput(action, value[f.name], f.type, types, `${at}.${f.name}`);
}

/** Where a relationship field's rows go: the handler's object (its join keys) and the answer object to fill. */
export interface RelationshipSlot {
  readonly parent: Obj;
  readonly target: Obj;
  readonly alias: string;
}

/**
 * The output cut to `selection`: aliases applied, `__typename` filled,
 * relationship fields left null with a slot recorded in `slots[index]`.
 */
export function shapeOutput(value: unknown, selection: ir.ActionSelection, slots: RelationshipSlot[][]): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => shapeOutput(v, selection, slots));
  if (selection.kind === 'leaf' || !isObject(value)) return value;
  const out: Obj = {};
  for (const f of selection.fields) {
    switch (f.kind) {
      case 'typename':
        out[f.alias] = f.typename;
        break;
      case 'field':
        out[f.alias] = shapeOutput(value[f.name], f.selection, slots);
        break;
      case 'relationship': {
        out[f.alias] = null;
        const list = slots[f.index] ?? [];
        list.push({ parent: value, target: out, alias: f.alias });
        slots[f.index] = list;
        break;
      }
    }
  }
  return out;
}
