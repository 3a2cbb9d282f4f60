/** Inherited-role derivation and permission interning (catalog stage "roles"), as pure functions. */
import { describe, expect, it } from 'vitest';
import { applyInheritedRoles, internPermissions, planInheritedRoles, type MutableTablePermissions } from '../../../../engine/catalog/stages/inherited-roles.ts';
import type { SelectPermissionInfo } from '../../../../engine/catalog/types.ts';

const sel = (columns: string[], filter: Record<string, unknown>, limit: number | null = null, allowAggregations = false): SelectPermissionInfo => ({
  columns,
  filter,
  limit,
  allowAggregations,
});
const slot = (select: SelectPermissionInfo | null, rest: Partial<MutableTablePermissions> = {}): MutableTablePermissions => ({
  select,
  insert: null,
  update: null,
  delete: null,
  ...rest,
});

describe('planInheritedRoles', () => {
  it('orders parents first, and leaves out cycles and admin with an inconsistency each', () => {
    const plan = planInheritedRoles([
      { role_name: 'top', role_set: ['mid', 'a'] },
      { role_name: 'mid', role_set: ['a', 'b'] },
      { role_name: 'x', role_set: ['y'] },
      { role_name: 'y', role_set: ['x'] },
      { role_name: 'adm', role_set: ['admin'] },
    ]);
    expect(plan.order.map((o) => o.role)).toEqual(['mid', 'top']);
    expect(plan.bad.map((b) => [b.type, b.name])).toEqual([
      ['inherited_role', 'inherited role y'],
      ['inherited_role', 'inherited role x'],
      ['inherited_role', 'inherited role adm'],
    ]);
  });
});

describe('applyInheritedRoles', () => {
  it('select: union of rows and columns, per-column visibility, largest limit, any aggregation', () => {
    const fa = { a: { _eq: 1 } };
    const fb = { b: { _eq: 2 } };
    const perms = new Map([
      ['ra', slot(sel(['id', 'x'], fa, 5))],
      ['rb', slot(sel(['id', 'y'], fb, 10, true))],
    ]);
    applyInheritedRoles(planInheritedRoles([{ role_name: 'ab', role_set: ['ra', 'rb'] }]), perms);
    const ab = perms.get('ab')?.select;
    expect(ab?.columns).toEqual(['id', 'x', 'y']);
    expect(ab?.filter).toEqual({ _or: [fa, fb] });
    expect(ab?.limit).toBe(10);
    expect(ab?.allowAggregations).toBe(true);
    expect([...(ab?.columnFilters ?? [])]).toEqual([
      ['x', fa],
      ['y', fb],
    ]);
  });

  it('a parent admitting every row makes its columns unconditional; no limit wins over a limit', () => {
    const perms = new Map([
      ['ra', slot(sel(['id', 'x'], {}, null))],
      ['rb', slot(sel(['id', 'y'], { b: 1 }, 3))],
    ]);
    applyInheritedRoles(planInheritedRoles([{ role_name: 'ab', role_set: ['ra', 'rb'] }]), perms);
    const ab = perms.get('ab')?.select;
    expect(ab?.filter).toEqual({});
    expect(ab?.limit).toBeNull();
    expect([...(ab?.columnFilters ?? [])]).toEqual([['y', { b: 1 }]]);
  });

  it('nesting uses the inner role’s column conditions; one parent is taken as is; own permission wins', () => {
    const own = sel(['id'], { own: true });
    const only = sel(['id', 'z'], { c: 3 });
    const perms = new Map([
      ['ra', slot(sel(['id', 'x'], { a: 1 }))],
      ['rb', slot(sel(['id'], { b: 2 }))],
      ['rc', slot(only)],
      ['mine', slot(own)],
    ]);
    applyInheritedRoles(
      planInheritedRoles([
        { role_name: 'ab', role_set: ['ra', 'rb'] },
        { role_name: 'abc', role_set: ['ab', 'rc'] },
        { role_name: 'c', role_set: ['rc', 'nobody'] },
        { role_name: 'mine', role_set: ['ra'] },
      ]),
      perms,
    );
    const abc = perms.get('abc')?.select;
    expect(abc?.filter).toEqual({ _or: [{ _or: [{ a: 1 }, { b: 2 }] }, { c: 3 }] });
    expect(abc?.columnFilters?.get('x')).toEqual({ a: 1 });
    expect(abc?.columnFilters?.get('z')).toEqual({ c: 3 });
    expect(abc?.columnFilters?.has('id')).toBe(false);
    expect(perms.get('c')?.select).toBe(only);
    expect(perms.get('mine')?.select).toBe(own);
  });

  it('insert/update/delete only when every parent defining one agrees', () => {
    const del = { filter: { a: 1 } };
    const perms = new Map([
      ['ra', slot(null, { delete: del, update: { columns: ['a'], filter: {}, check: null, set: {} } })],
      ['rb', slot(null, { delete: { filter: { a: 1 } }, update: { columns: ['b'], filter: {}, check: null, set: {} } })],
    ]);
    applyInheritedRoles(planInheritedRoles([{ role_name: 'ab', role_set: ['ra', 'rb'] }]), perms);
    expect(perms.get('ab')?.delete).toBe(del);
    expect(perms.get('ab')?.update).toBeNull();
    expect(perms.get('ab')?.select).toBeNull();
  });
});

describe('internPermissions', () => {
  it('equal permissions of a table become one object; different ones stay apart', () => {
    const perms = new Map([
      ['r1', slot(sel(['id'], { a: 1 }))],
      ['r2', slot(sel(['id'], { a: 1 }))],
      ['r3', slot(sel(['id'], { a: 2 }))],
    ]);
    internPermissions(perms);
    expect(perms.get('r1')?.select).toBe(perms.get('r2')?.select);
    expect(perms.get('r3')?.select).not.toBe(perms.get('r1')?.select);
  });

  it('compares every part: column filters (a Map), computed fields, limits, and each mutation kind', () => {
    const cf = (exp: Record<string, unknown>): SelectPermissionInfo => ({ ...sel(['id', 'a'], {}), columnFilters: new Map([['a', exp]]) });
    const ins = { columns: ['id'], check: {}, set: { id: 'x-engine-user-id' } };
    const perms = new Map([
      ['f1', slot(cf({ a: { _eq: 1 } }), { insert: { ...ins } })],
      ['f2', slot(cf({ a: { _eq: 1 } }), { insert: { ...ins, set: { id: 'x-engine-org-id' } } })],
      ['f3', slot(cf({ a: { _eq: 2 } }), { insert: { ...ins }, delete: { filter: {} } })],
      ['c1', slot({ ...sel(['id'], {}), computedFields: ['full_name'] }, { delete: { filter: {} } })],
      ['c2', slot(sel(['id'], { a: 1 }), { delete: { filter: { id: { _gt: 0 } } } })],
      ['l1', slot(sel(['id'], {}, 10))],
      ['l2', slot(sel(['id'], {}, null))],
    ]);
    internPermissions(perms);
    const get = (r: string): MutableTablePermissions => perms.get(r) as MutableTablePermissions;
    expect(get('f2').select).toBe(get('f1').select);
    expect(get('f3').select).not.toBe(get('f1').select);
    expect(get('f3').insert).toBe(get('f1').insert);
    expect(get('f2').insert).not.toBe(get('f1').insert);
    expect(get('c1').delete).toBe(get('f3').delete);
    expect(get('c2').delete).not.toBe(get('f3').delete);
    expect(new Set(['c1', 'c2', 'l1', 'l2'].map((r) => get(r).select)).size).toBe(4);
  });
});
