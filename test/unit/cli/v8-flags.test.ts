import { describe, expect, it } from 'vitest';
import { defaultProductionMode, ENGINE_MALLOC_ENV, ENGINE_V8_FLAGS, missingMallocEnv, missingV8Flags } from '../../../engine/cli/v8-flags.ts';

describe('missingV8Flags', () => {
  it('adds every flag when none is given', () => {
    expect(missingV8Flags([], undefined)).toEqual(ENGINE_V8_FLAGS);
    expect(missingV8Flags(['--cpu-prof'], '--enable-source-maps')).toEqual(ENGINE_V8_FLAGS);
  });

  it('keeps a value given on the command line or in NODE_OPTIONS, in either spelling, flag by flag', () => {
    expect(missingV8Flags(['--max-semi-space-size=64'], undefined)).toEqual(['--min-semi-space-size=16', '--no-memory-reducer']);
    expect(missingV8Flags([], '--trace-gc  --max_semi_space_size=4')).toEqual(['--min-semi-space-size=16', '--no-memory-reducer']);
    expect(missingV8Flags(['--max_semi_space_size=8', '--memory-reducer'], '--min-semi-space-size=1')).toEqual([]);
    expect(missingV8Flags(['--min_semi_space_size=2', '--no-memory_reducer'], '')).toEqual(['--max-semi-space-size=16']);
  });

  it('does not take a longer flag for the one it looks for', () => {
    expect(missingV8Flags(['--max-semi-space-size-x=1'], undefined)).toEqual(ENGINE_V8_FLAGS);
  });
});

describe('defaultProductionMode', () => {
  it('sets NODE_ENV=production when the operator set none, and keeps any value of theirs', () => {
    const none: Record<string, string | undefined> = { PATH: '/bin' };
    defaultProductionMode(none);
    expect(none).toEqual({ PATH: '/bin', NODE_ENV: 'production' });
    for (const value of ['development', 'test', '']) {
      const env: Record<string, string | undefined> = { NODE_ENV: value };
      defaultProductionMode(env);
      expect(env['NODE_ENV']).toBe(value);
    }
  });
});

describe('missingMallocEnv', () => {
  it("adds the engine's malloc settings unless the operator set them, directly or as glibc tunables", () => {
    expect(missingMallocEnv({ PATH: '/bin' })).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(ENGINE_MALLOC_ENV).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(missingMallocEnv({ MALLOC_MMAP_THRESHOLD_: '65536' })).toEqual({});
    expect(missingMallocEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=262144' })).toEqual({});
    expect(missingMallocEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
  });
});
