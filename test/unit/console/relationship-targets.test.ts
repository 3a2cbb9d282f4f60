/**
 * The targets of a source's relationships for the permission builder's
 * relationship conditions (engine/console/src/pages/permissions/relationship-targets.ts):
 * from a manual configuration, an array relationship's foreign key, and an
 * object relationship's foreign key columns looked up in the database's keys.
 */
import { describe, expect, it } from 'vitest';
import type { DbForeignKey } from '../../../engine/console/src/introspect.ts';
import type { SourceEntry } from '../../../engine/console/src/metadata-state.tsx';
import { relationshipTargets } from '../../../engine/console/src/pages/permissions/relationship-targets.ts';

const fk: DbForeignKey = {
  name: 'articles_author_id_fkey',
  schema: 'public',
  table: 'articles',
  columns: ['author_id'],
  ref_schema: 'public',
  ref_table: 'authors',
  ref_columns: ['id'],
};

describe('relationship targets', () => {
  it('reads each kind of relationship, and leaves out one whose target is unknown', () => {
    const source = {
      name: 'default',
      kind: 'postgres',
      tables: [
        {
          table: { schema: 'public', name: 'articles' },
          object_relationships: [
            { name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
            { name: 'editor', using: { foreign_key_constraint_on: ['editor_id'] } },
            { name: 'sheet', using: { manual_configuration: { remote_table: 'sheets', column_mapping: { id: 'article_id' } } } },
          ],
        },
        {
          table: { schema: 'public', name: 'authors' },
          array_relationships: [
            { name: 'articles', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'articles' }, columns: ['author_id'] } } },
          ],
        },
      ],
    } as unknown as SourceEntry;
    const targets = relationshipTargets(source, [fk]);
    expect(targets.get('public.articles')).toEqual([
      { name: 'author', target: 'public.authors' },
      { name: 'sheet', target: 'public.sheets' },
    ]);
    expect(targets.get('public.authors')).toEqual([{ name: 'articles', target: 'public.articles' }]);
  });
});
