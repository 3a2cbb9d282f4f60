/** A remote schema's schema as Engine serves it, as SDL. */
import { useEffect, useState } from 'react';
import { messageOf } from '../../api.ts';
import { remoteSdl } from './remote-sdl.ts';

export function RemoteSchemaView({ name }: { name: string }) {
  const [sdl, setSdl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    remoteSdl(name).then(setSdl, (e: unknown) => setError(messageOf(e)));
  }, [name]);
  return (
    <section aria-label={`Schema of ${name}`}>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {sdl !== null && <pre aria-label={`SDL of ${name}`}>{sdl}</pre>}
    </section>
  );
}
