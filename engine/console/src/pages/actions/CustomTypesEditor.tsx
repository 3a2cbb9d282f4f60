/** Every custom type as SDL, saved with `set_custom_types` (objects keep their relationships). */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { useMetadata, type CustomTypes } from '../../metadata-state.tsx';
import { mergeTypes, parseTypesSdl, typesToSdl } from './action-sdl.ts';

export function CustomTypesEditor({ types }: { types: CustomTypes }) {
  const { refresh } = useMetadata();
  const [sdl, setSdl] = useState(typesToSdl(types));
  const [status, run] = useAction();
  const relationships = (types.objects ?? []).filter((o) => (o.relationships ?? []).length > 0);
  return (
    <form
      aria-label="Custom types"
      onSubmit={(e) => {
        e.preventDefault();
        void run('Saving…', 'Saved the custom types', async () => {
          // The whole set is replaced, but objects keep their relationships (SDL has no syntax for them).
          const parsed = parseTypesSdl(sdl);
          const withRelationships = mergeTypes({ objects: relationships }, parsed);
          const kept = new Set((['scalars', 'enums', 'input_objects', 'objects'] as const).flatMap((k) => (parsed[k] ?? []).map((t) => t.name)));
          const result = { ...withRelationships, objects: (withRelationships.objects ?? []).filter((o) => kept.has(o.name)) };
          await callMetadata('set_custom_types', result);
          await refresh();
        });
      }}
    >
      <h1>Custom types</h1>
      <p className="muted">
        Every custom type as SDL: <code>type</code> (output objects), <code>input</code>, <code>enum</code>, <code>scalar</code>. Saving replaces the whole set
        (set_custom_types); a type an action still uses cannot be dropped.
      </p>
      <div className="field">
        <label htmlFor="custom-types-sdl">Custom types (SDL)</label>
        <textarea id="custom-types-sdl" rows={22} spellCheck={false} value={sdl} onChange={(e) => setSdl(e.target.value)} />
      </div>
      <Status value={status} />
      <button type="submit" className="btn primary">
        Save custom types
      </button>
    </form>
  );
}
