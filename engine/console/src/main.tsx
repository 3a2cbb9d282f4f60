/**
 * The Engine web console: a single page, routed by the URL's hash so it works
 * under any path prefix (Note [Console build layout] in ../build.ts).
 */
import './workers.ts';
import 'graphiql/style.css';
import '@graphiql/plugin-explorer/style.css';
import './console.css';
import { StrictMode, useEffect, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError, adminSecret, metadata, messageOf, setAdminSecret } from './api.ts';
import { MetadataProvider, useMetadata } from './metadata-state.tsx';
import { useRoute } from './route.ts';
import { ROUTES, routeOf } from './routes.tsx';

function SecretForm({ onDone, failed }: { onDone: () => void; failed: string | null }) {
  const [value, setValue] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAdminSecret(value);
    onDone();
  };
  return (
    <main className="secret-gate">
      <h1 id="secret-heading">Engine console</h1>
      <form onSubmit={submit} aria-labelledby="secret-heading">
        <p>This engine has an admin secret. Enter it to use the console; it is kept for this browser tab only.</p>
        {failed !== null && (
          <p role="alert" className="error">
            {failed}
          </p>
        )}
        <label htmlFor="admin-secret">Admin secret</label>
        <input id="admin-secret" type="password" autoComplete="current-password" autoFocus value={value} onChange={(e) => setValue(e.target.value)} />
        <button type="submit" className="btn primary">
          Enter
        </button>
      </form>
    </main>
  );
}

/** The header's count of inconsistent objects, a link to the Metadata page that lists them. */
function InconsistencyBadge() {
  const { inconsistent } = useMetadata();
  if (inconsistent === null || inconsistent.length === 0) return null;
  const n = inconsistent.length;
  return (
    <a
      className="incons-badge"
      href="#/metadata"
      aria-label={`${n} inconsistent object${n === 1 ? '' : 's'}`}
      title={inconsistent.map((o) => o.reason).join('\n')}
    >
      ⚠ {n} inconsistent
    </a>
  );
}

type Gate = { state: 'checking' } | { state: 'needs-secret'; failed: string | null } | { state: 'open' } | { state: 'down'; message: string };

function App() {
  const [gate, setGate] = useState<Gate>({ state: 'checking' });
  const route = useRoute();
  const check = async () => {
    try {
      await metadata('get_inconsistent_metadata');
      setGate({ state: 'open' });
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.code === 'access-denied')) {
        const had = adminSecret() !== null;
        setGate({ state: 'needs-secret', failed: had ? 'That admin secret was refused.' : null });
      } else setGate({ state: 'down', message: messageOf(e) });
    }
  };
  useEffect(() => {
    void check();
  }, []);
  if (gate.state === 'checking') return <p className="loading">Connecting to the engine…</p>;
  if (gate.state === 'down')
    return (
      <p role="alert" className="error">
        The engine did not answer: {gate.message}
      </p>
    );
  if (gate.state === 'needs-secret') return <SecretForm failed={gate.failed} onDone={() => void check()} />;
  const page = routeOf(route.page);
  return (
    <MetadataProvider>
      <div className="shell">
        <header className="topbar">
          <span className="brand">Engine</span>
          <nav aria-label="Console sections">
            <ul>
              {ROUTES.map((p) => (
                <li key={p.path}>
                  <a href={`#/${p.path}`} aria-current={p.path === page.path ? 'page' : undefined}>
                    {p.title}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <InconsistencyBadge />
          {adminSecret() !== null && (
            <button
              type="button"
              className="btn small"
              onClick={() => {
                setAdminSecret(null);
                setGate({ state: 'needs-secret', failed: null });
              }}
            >
              Forget admin secret
            </button>
          )}
        </header>
        <main className="page" aria-label={page.title}>
          {page.render(route.params)}
        </main>
      </div>
    </MetadataProvider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
