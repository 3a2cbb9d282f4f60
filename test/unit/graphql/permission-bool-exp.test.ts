/** Permission JSON → IR, with the aliases of the permission language. */
import { describe, expect, it } from 'vitest';
import { toIrPermissionFilter } from '../../../engine/graphql/to-ir/permission-bool-exp.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

const source = musicCatalog().sources.get('default');
const albums = source?.tables.get('public.albums');
if (source === undefined || albums === undefined) throw new Error('fixture');

describe('toIrPermissionFilter', () => {
  it('bare column values, $-aliases, _ne, session variables (any case)', () => {
    const e = toIrPermissionFilter({ $or: [{ id: 'X-Engine-User-Id' }, { title: { _ne: 'x' } }], artist_id: { $in: [1, 'x-engine-a'] } }, albums, source);
    expect(e).toEqual({
      kind: 'and',
      items: [
        {
          kind: 'or',
          items: [
            {
              kind: 'compare',
              left: { column: 'id', cast: null },
              op: 'eq',
              right: { kind: 'session', name: 'x-engine-user-id', encoding: 'plain' },
              dbType: 'int4',
            },
            { kind: 'compare', left: { column: 'title', cast: null }, op: 'neq', right: { kind: 'const', value: 'x' }, dbType: 'text' },
          ],
        },
        {
          kind: 'compare',
          left: { column: 'artist_id', cast: null },
          op: 'in',
          right: {
            kind: 'list',
            items: [
              { kind: 'const', value: 1 },
              { kind: 'session', name: 'x-engine-a', encoding: 'plain' },
            ],
          },
          dbType: 'int4',
        },
      ],
    });
  });

  it('relationships, _exists, _not, jsonb aliases', () => {
    const e = toIrPermissionFilter(
      {
        artist: { name: { _eq: 'A' } },
        _not: { meta: { _has_any_keys: 'X-Engine-Keys' } },
        _exists: { _table: { schema: 'public', name: 'genres' }, _where: {} },
      },
      albums,
      source,
    );
    expect(e).toMatchObject({
      kind: 'and',
      items: [
        { kind: 'relationship', target: { schema: 'public', name: 'artists' }, mapping: [['artist_id', 'id']] },
        { kind: 'not', item: { kind: 'compare', op: 'has_keys_any', right: { kind: 'session', name: 'x-engine-keys', encoding: 'session-array' } } },
        { kind: 'exists', target: { schema: 'public', name: 'genres' }, where: { kind: 'and', items: [] } },
      ],
    });
  });

  it('anything unknown denies', () => {
    expect(toIrPermissionFilter({ nope: { _eq: 1 } }, albums, source)).toEqual({ kind: 'or', items: [] });
    expect(toIrPermissionFilter({ id: { _what: 1 } }, albums, source)).toEqual({ kind: 'or', items: [] });
  });
});
