import { describe, expect, it } from 'vitest';
import { isTransientInconsistency, unreachableNote } from '../../../controller/reconcilers/engine-reconciler.ts';
import {
  fingerprint,
  inconsistencyDigest,
  isReadinessFinding,
  mergeReports,
  RemoteChecks,
  withRemotesDown,
  withSourcesDown,
  type ReplicaView,
} from '../../../controller/reconcilers/replicas.ts';

const obj = (name: string, reason: string) => ({ type: 'remote_schema', name, reason });
const view = (url: string, rv: number, objects: ReturnType<typeof obj>[]): ReplicaView => ({
  url,
  state: { resourceVersion: rv, report: { isConsistent: objects.length === 0, inconsistentObjects: objects } },
});

describe('replicas', () => {
  it('adds a source whose readiness ping failed as a transient inconsistency, once, never to be reloaded', () => {
    const listed = { isConsistent: false, inconsistentObjects: [{ type: 'source', name: 'source old', reason: 'connection refused' }] };
    const r = withSourcesDown(listed, [
      { name: 'shop', error: 'connect ECONNREFUSED 127.0.0.1:5999' },
      { name: 'old', error: 'no answer within 2000 ms' },
    ]);
    expect(r.inconsistentObjects).toHaveLength(2);
    const shop = r.inconsistentObjects[1];
    expect(shop?.name).toBe('source shop');
    expect(shop !== undefined && isReadinessFinding(shop)).toBe(true);
    expect(isTransientInconsistency('source', shop?.reason ?? '')).toBe(true);
    expect(isReadinessFinding(listed.inconsistentObjects[0] ?? { type: '', reason: '' })).toBe(false);
    expect(withSourcesDown({ isConsistent: true, inconsistentObjects: [] }, [])).toEqual({ isConsistent: true, inconsistentObjects: [] });
  });

  it("adds a remote schema the engine's probe found down as a transient inconsistency, unless the engine lists it", () => {
    const listed = { isConsistent: false, inconsistentObjects: [obj('remote_schema old', 'HTTP exception occurred: ECONNREFUSED')] };
    const r = withRemotesDown(listed, [
      { name: 'weather', error: 'could not reach the remote schema at http://10.0.0.7:4000: ECONNREFUSED' },
      { name: 'old', error: 'no answer' },
    ]);
    expect(r.inconsistentObjects).toHaveLength(2);
    const w = r.inconsistentObjects[1];
    expect(w?.name).toBe('remote_schema weather');
    expect(w?.reason).toBe(
      "could not reach the remote schema (the engine's readiness check: could not reach the remote schema at http://10.0.0.7:4000: ECONNREFUSED)",
    );
    expect(w !== undefined && isReadinessFinding(w)).toBe(true);
    expect(isTransientInconsistency('remote_schema', w?.reason ?? '')).toBe(true);
    expect(withRemotesDown({ isConsistent: true, inconsistentObjects: [] }, [])).toEqual({ isConsistent: true, inconsistentObjects: [] });
  });

  it('keeps the last remote probe of each replica until the next one is due', () => {
    const c = new RemoteChecks();
    expect(c.due('http://a', 2000, 1000)).toBe(true);
    expect(c.due('http://a', 0, 1000)).toBe(false);
    c.record('http://a', [{ name: 'weather', error: 'down' }], 1000);
    expect(c.due('http://a', 2000, 2999)).toBe(false);
    expect(c.down('http://a')).toEqual([{ name: 'weather', error: 'down' }]);
    expect(c.down('http://b')).toEqual([]);
    expect(c.due('http://a', 2000, 3000)).toBe(true);
    c.forget(['http://a']);
    expect(c.down('http://a')).toEqual([]);
  });

  it('digests what is inconsistent, not how many', () => {
    expect(inconsistencyDigest([obj('a', 'down'), obj('b', 'down')])).toBe(inconsistencyDigest([obj('b', 'down'), obj('a', 'down')]));
    expect(inconsistencyDigest([obj('a', 'down')])).not.toBe(inconsistencyDigest([obj('b', 'down')]));
    expect(inconsistencyDigest([obj('a', 'down')])).not.toBe(inconsistencyDigest([obj('a', 'timeout')]));
    const f = fingerprint([view('http://b', 3, []), view('http://a', 3, [obj('x', 'down')])]);
    expect(f.startsWith('http://a=3:')).toBe(true);
    expect(fingerprint([{ url: 'http://a', state: 'unreachable' }])).toBe('http://a=unreachable');
  });

  it('merges the replicas at the newest resource_version and says where an object is inconsistent', () => {
    const merged = mergeReports([
      view('http://a', 5, []),
      view('http://b', 5, [obj('weather', 'connection refused')]),
      view('http://c', 4, [obj('old', 'stale')]),
      { url: 'http://d', state: 'unreachable' },
    ]);
    expect(merged?.resourceVersion).toBe(5);
    expect(merged?.behind).toEqual(['http://c']);
    expect(merged?.report.inconsistentObjects).toEqual([obj('weather', 'connection refused (on 1 of 2 replicas: http://b)')]);
    expect(mergeReports([view('http://a', 5, [obj('w', 'x')]), view('http://b', 5, [obj('w', 'x')])])?.report.inconsistentObjects).toEqual([obj('w', 'x')]);
    expect(mergeReports([{ url: 'http://a', state: 'unreachable' }])).toBeNull();
  });
});

describe('isTransientInconsistency', () => {
  it('takes a remote schema or source that could not be reached for transient, and nothing else', () => {
    expect(
      isTransientInconsistency(
        'remote_schema',
        'remote schema "w" is inconsistent: could not reach the remote schema at http://x/graphql: ECONNREFUSED connect ECONNREFUSED',
      ),
    ).toBe(true);
    expect(isTransientInconsistency('remote_schema', 'remote schema "w" is inconsistent: the remote schema did not answer within 60 seconds')).toBe(true);
    expect(isTransientInconsistency('source', 'connect ETIMEDOUT 10.0.0.1:5432')).toBe(true);
    // tedious (MSSQL sources), refused or timed out; a refused login is not transient.
    expect(isTransientInconsistency('source', 'could not connect to source "shop": Failed to connect to 127.0.0.1:1433 - Could not connect (sequence)')).toBe(
      true,
    );
    expect(isTransientInconsistency('source', 'could not connect to source "shop": Failed to connect to db:1433 in 15000ms')).toBe(true);
    expect(isTransientInconsistency('source', `could not connect to source "shop": Login failed for user 'sa'.`)).toBe(false);
    expect(isTransientInconsistency('remote_schema', 'the root field "w" of remote schema "f" conflicts with the one of remote schema "w"')).toBe(false);
    expect(isTransientInconsistency('select_permission', 'could not reach')).toBe(false);
  });
});

describe('unreachableNote', () => {
  const consistent = { isConsistent: true, inconsistentObjects: [] };
  const probed = withRemotesDown(consistent, [{ name: 'weather', error: 'ECONNREFUSED' }]).inconsistentObjects;
  const pinged = withSourcesDown(consistent, [{ name: 'shop', error: 'ECONNREFUSED' }]).inconsistentObjects;
  const listed = [obj('remote_schema forecast', 'could not reach the remote schema at http://x/graphql: ECONNREFUSED')];

  it('says a remote found down by the probe alone is not reloaded', () => {
    const m = unreachableNote(probed);
    expect(m).toBe("1 remote schema unreachable per the engine's remote probe (/readyz?remotes=true); not reloaded: Ready again once they answer");
    expect(m).not.toContain('reloading');
    expect(unreachableNote(pinged)).toBe("1 source unreachable per the engine's readiness ping; not reloaded: Ready again once they answer");
  });

  it('says reloading only of what the engine lists, and counts each kind of finding apart', () => {
    expect(unreachableNote(listed)).toBe('1 remote schema or source could not be reached; reloading with backoff');
    expect(unreachableNote([...listed, ...listed, ...probed, ...pinged])).toBe(
      "2 remote schemas or sources could not be reached; reloading with backoff; 1 remote schema unreachable per the engine's remote probe (/readyz?remotes=true); 1 source unreachable per the engine's readiness ping; the probed ones are not reloaded: Ready again once they answer",
    );
  });
});
