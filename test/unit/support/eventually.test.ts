import { describe, expect, it } from 'vitest';
import { eventually, eventuallyValue } from '../../support/eventually.ts';

/** The error `p` rejects with; fails the test when it resolves. */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe('eventually', () => {
  it('retries an assertion until it stops throwing, and resolves to its value', async () => {
    let n = 0;
    const v = await eventually(
      () => {
        n++;
        expect(n).toBeGreaterThanOrEqual(3);
        return n;
      },
      { what: 'three tries', intervalMs: 1 },
    );
    expect(v).toBe(3);
  });

  it('retries a predicate while it returns false', async () => {
    let n = 0;
    await eventually(async () => ++n === 4, { what: 'four tries', intervalMs: 1 });
    expect(n).toBe(4);
  });

  it('fails at the bound with what it waited for, the last error and the context', async () => {
    let n = 0;
    const err = await failure(
      eventually(
        () => {
          throw new Error(`try ${++n}`);
        },
        { what: 'the impossible', timeoutMs: 50, intervalMs: 5, context: () => 'process output' },
      ),
    );
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(new RegExp(`^timed out after 50 ms waiting for the impossible \\(last error: try ${n}\\)\\nprocess output$`));
    expect((err.cause as Error).message).toBe(`try ${n}`);
    expect(n).toBeGreaterThan(1);
  });

  it('stops at once when giveUp gives a reason', async () => {
    let n = 0;
    const started = Date.now();
    const err = await failure(
      eventually(() => ++n > 100, {
        what: 'a port',
        timeoutMs: 10_000,
        intervalMs: 1,
        giveUp: () => (n >= 2 ? 'the process exited' : undefined),
      }),
    );
    expect(err.message).toBe('gave up waiting for a port: the process exited');
    expect(n).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('eventuallyValue', () => {
  it('retries while the lookup finds nothing, and resolves to what it found', async () => {
    const seen: unknown[] = [undefined, null, false, { holder: 'a' }];
    let i = 0;
    const v = await eventuallyValue(() => seen[i++] as { holder: string } | undefined, { what: 'a holder', intervalMs: 1 });
    expect(v).toEqual({ holder: 'a' });
    expect(i).toBe(4);
  });

  it('reports the last value when the bound is hit', async () => {
    const err = await failure(eventuallyValue(() => null, { what: 'a Lease', timeoutMs: 20, intervalMs: 5 }));
    expect(err.message).toBe('timed out after 20 ms waiting for a Lease (last value: null)');
  });
});
