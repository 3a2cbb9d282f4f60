import { describe, expect, it } from 'vitest';
import { pollVerdict } from '../../../controller/reconcilers/engine-monitor.ts';

const client = { url: 'http://e:8080' };

describe('pollVerdict', () => {
  it('queues nothing while the engine is as the last reconcile left it', () => {
    expect(pollVerdict({ client, reachable: true, resourceVersion: 7, inconsistentObjects: 0 }, { resourceVersion: 7, inconsistentObjects: 0 })).toBeNull();
    expect(pollVerdict({ client, reachable: false }, 'unreachable')).toBeNull();
  });

  it('queues on drift (a new resource_version), on a change of consistency, on an outage and on recovery', () => {
    expect(pollVerdict({ client, reachable: true, resourceVersion: 7, inconsistentObjects: 0 }, { resourceVersion: 8, inconsistentObjects: 0 })).toBe(
      'resource_version 7 -> 8',
    );
    expect(pollVerdict({ client, reachable: true, resourceVersion: 7, inconsistentObjects: 0 }, { resourceVersion: 7, inconsistentObjects: 2 })).toBe(
      'inconsistent objects 0 -> 2',
    );
    expect(pollVerdict({ client, reachable: true, resourceVersion: 7, inconsistentObjects: 0 }, 'unreachable')).toBe('the engine stopped answering');
    expect(pollVerdict({ client, reachable: false }, { resourceVersion: 7, inconsistentObjects: 0 })).toBe('the engine answers again');
  });
});

describe('pollVerdict with replicas', () => {
  it('queues when what is inconsistent changes although the count does not, or when one replica changes', () => {
    const known = { client, reachable: true, resourceVersion: 7, inconsistentObjects: 1, fingerprint: 'http://a=7:aaa http://b=7:aaa' };
    expect(pollVerdict(known, { resourceVersion: 7, inconsistentObjects: 1, fingerprint: 'http://a=7:aaa http://b=7:aaa' })).toBeNull();
    expect(pollVerdict(known, { resourceVersion: 7, inconsistentObjects: 1, fingerprint: 'http://a=7:aaa http://b=7:bbb' })).toBe(
      'replicas: http://a=7:aaa http://b=7:aaa -> http://a=7:aaa http://b=7:bbb',
    );
  });
});
