import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../controller/api/v1alpha1/engine.ts';
import type { TargetResource } from '../../../controller/reconcilers/declarations.ts';
import { outcomeOf } from '../../../controller/reconcilers/engine-reconciler.ts';
import { engineNameFor, engineUrl, noEngineMessage, parseQueueKey, unboundReason } from '../../../controller/reconcilers/resolve.ts';

const engine = (name: string, spec: Engine['spec'] = { url: 'http://e:8080' }): Engine => ({
  apiVersion: 'graphql.engine.dev/v1alpha1',
  kind: 'Engine',
  metadata: { name, namespace: 'ns', uid: name },
  spec,
});
const resource = (engineRef?: string): TargetResource => ({
  apiVersion: 'graphql.engine.dev/v1alpha1',
  kind: 'TrackedTable',
  metadata: { name: 't', namespace: 'ns', uid: 't' },
  spec: engineRef === undefined ? { table: 't' } : { table: 't', engineRef: { name: engineRef } },
});

describe('engine resolution', () => {
  it('uses engineRef, else the only Engine of the namespace', () => {
    expect(engineNameFor(resource('b'), [engine('a')])).toBe('b');
    expect(engineNameFor(resource(), [engine('a')])).toBe('a');
    expect(engineNameFor(resource(), [engine('a'), engine('b')])).toBeNull();
    expect(noEngineMessage(resource(), [engine('b'), engine('a')])).toBe('namespace ns has 2 Engines (a, b); set spec.engineRef');
    expect(noEngineMessage(resource(), [])).toBe('no Engine in namespace ns');
  });

  it('tells an ambiguous resource from a dangling reference and from a namespace without Engine', () => {
    expect(unboundReason(resource(), [engine('a')])).toBeNull();
    expect(unboundReason(resource('a'), [engine('a'), engine('b')])).toBeNull();
    expect(unboundReason(resource(), [engine('a'), engine('b')])).toBe('ambiguous');
    expect(unboundReason(resource('mian'), [engine('main')])).toBe('dangling');
    expect(unboundReason(resource(), [])).toBe('none');
  });

  it('reaches an engine by url or by its Service', () => {
    expect(engineUrl(engine('a'))).toBe('http://e:8080');
    expect(engineUrl(engine('a', { serviceRef: { name: 'engine' } }))).toBe('http://engine.ns.svc:8080');
    expect(engineUrl(engine('a', { serviceRef: { name: 'engine', port: 443, scheme: 'https' } }))).toBe('https://engine.ns.svc:443');
  });

  it('parses queue keys', () => {
    expect(parseQueueKey('engine/ns/main')).toEqual({ kind: 'engine', namespace: 'ns', name: 'main' });
    expect(parseQueueKey('unbound/ns')).toEqual({ kind: 'unbound', namespace: 'ns' });
    expect(parseQueueKey('junk')).toBeNull();
  });
});

describe('outcomeOf', () => {
  it('maps fold results and inconsistencies to outcomes', () => {
    const byKey = new Map([['table/default/public.t', ['table t in source default: Inconsistent object: no such table']]]);
    const t = { schema: 'public', name: 't' };
    const u = { schema: 'public', name: 'u' };
    expect(
      outcomeOf(
        { state: 'applied', objectKey: 'table/default/public.t', ref: { kind: 'table', source: 'default', table: t }, keys: ['table/default/public.t'] },
        byKey,
      ),
    ).toMatchObject({ ready: false, reason: 'InconsistentMetadata', stalled: true });
    expect(
      outcomeOf(
        { state: 'applied', objectKey: 'table/default/public.u', ref: { kind: 'table', source: 'default', table: u }, keys: ['table/default/public.u'] },
        byKey,
      ),
    ).toMatchObject({ ready: true, reason: 'Applied' });
    expect(outcomeOf({ state: 'dependency', objectKey: 'k', message: 'm' }, byKey)).toMatchObject({
      ready: false,
      reason: 'DependencyMissing',
      stalled: false,
    });
    expect(outcomeOf({ state: 'invalid', message: 'm' }, byKey)).toMatchObject({ reason: 'InvalidSpec', stalled: true });
    expect(outcomeOf({ state: 'conflict', objectKey: 'k', message: 'm' }, byKey)).toMatchObject({ reason: 'Conflict', stalled: true });
  });
});
