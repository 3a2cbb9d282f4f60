/**
 * The multiplexed live-query text (Note [Multiplexed live queries]):
 * placeholders are rewritten outside quoted identifiers and string literals only.
 */
import { describe, expect, it } from 'vitest';
import { multiplexedText, rewritePlaceholders } from '../../../engine/backends/postgres/live-query.ts';

describe('rewritePlaceholders', () => {
  it('rewrites $n outside quotes and leaves quoted text alone', () => {
    const text = `SELECT "a$1""b$2", 'it''s $1', $1, ($12)::int, $2 FROM "t$3"`;
    expect(rewritePlaceholders(text, (n) => `<${n}>`)).toBe(`SELECT "a$1""b$2", 'it''s $1', <1>, (<12>)::int, <2> FROM "t$3"`);
  });

  it('keeps a lone $ and an unterminated quote as they are', () => {
    expect(rewritePlaceholders(`SELECT '$' || $1 || "x`, (n) => `p${n}`)).toBe(`SELECT '$' || p1 || "x`);
  });
});

describe('multiplexedText', () => {
  it('reads each parameter from the batch row, cast to the type inferred for it', () => {
    const text = multiplexedText(
      {
        text: "SELECT json_build_object('x', (SELECT 1 WHERE $1 = $2))::text",
        params: [
          { kind: 'const', value: 1 },
          { kind: 'session', name: 'x-engine-user-id', encoding: 'plain' },
        ],
        paramTypes: [null, null],
      },
      ['integer', 'text'],
    );
    expect(text).toBe(
      'SELECT "_subs"."__i", (SELECT json_build_object(\'x\', (SELECT 1 WHERE ("_subs"."__p1")::integer = ("_subs"."__p2")::text))::text) FROM unnest($1::int4[], $2::text[], $3::text[]) AS "_subs"("__i", "__p1", "__p2")',
    );
  });
});
