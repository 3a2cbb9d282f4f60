/** Creates a query collection (`create_query_collection`). */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { useMetadata } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';

export function NewCollection() {
  const { refresh } = useMetadata();
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const [status, run] = useAction();
  return (
    <form
      aria-label="New query collection"
      onSubmit={(e) => {
        e.preventDefault();
        void run('Creating…', '', async () => {
          const n = name.trim();
          await callMetadata('create_query_collection', {
            name: n,
            definition: { queries: [] },
            ...(comment.trim() !== '' ? { comment: comment.trim() } : {}),
          });
          await refresh();
          navigate('collections', { collection: n });
        });
      }}
    >
      <h1>New query collection</h1>
      <div className="row">
        <label htmlFor="qc-name">Collection name</label>
        <input id="qc-name" value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="qc-comment">Comment</label>
        <input id="qc-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
      </div>
      <Status value={status} />
      <button type="submit" className="btn primary">
        Create collection
      </button>
    </form>
  );
}
