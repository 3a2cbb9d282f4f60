import { describe, expect, it } from 'vitest';
import { defaultCompileCacheDir } from '../../../engine/cli/compile-cache.ts';

describe('defaultCompileCacheDir', () => {
  it("prefers XDG_CACHE_HOME, then the home's .cache, then the temporary directory by user id", () => {
    expect(defaultCompileCacheDir({ XDG_CACHE_HOME: '/c', HOME: '/home/u' }, '/tmp', 1000)).toBe('/c/engine/compile-cache');
    expect(defaultCompileCacheDir({ HOME: '/home/u' }, '/tmp', 1000)).toBe('/home/u/.cache/engine/compile-cache');
    expect(defaultCompileCacheDir({}, '/tmp', 1000)).toBe('/tmp/engine-compile-cache-1000');
    expect(defaultCompileCacheDir({}, '/tmp', null)).toBe('/tmp/engine-compile-cache-user');
  });

  it('takes no relative path and no home that is the root (a container user without a home)', () => {
    expect(defaultCompileCacheDir({ XDG_CACHE_HOME: 'cache', HOME: '/' }, '/var/tmp', 7)).toBe('/var/tmp/engine-compile-cache-7');
    expect(defaultCompileCacheDir({ HOME: 'home' }, '/tmp', 7)).toBe('/tmp/engine-compile-cache-7');
  });
});
