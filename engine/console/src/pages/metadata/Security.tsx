/**
 * Security settings (on the Metadata page):
 * - the roles GraphQL introspection is refused to (`graphql_schema_introspection`,
 *   saved with `set_graphql_schema_introspection_options`, which replaces the list):
 *   one checkbox per role the metadata names, and a field for another role;
 * - the insecure TLS allow-list (`network.tls_allowlist`): the hosts, and ports, whose
 *   certificates the engine accepts unverified; each added with
 *   `add_host_to_tls_allowlist` and removed with `drop_host_from_tls_allowlist`.
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import { knownRoles, useMetadata } from '../../metadata-state.tsx';

interface TlsEntry {
  host: string;
  suffix?: string;
  permissions?: string[];
}

function disabledRolesOf(md: unknown): string[] {
  const o = (md as { graphql_schema_introspection?: { disabled_for_roles?: unknown } } | null)?.graphql_schema_introspection;
  return Array.isArray(o?.disabled_for_roles) ? o.disabled_for_roles.filter((r): r is string => typeof r === 'string') : [];
}

function allowlistOf(md: unknown): TlsEntry[] {
  const list = (md as { network?: { tls_allowlist?: unknown } } | null)?.network?.tls_allowlist;
  return Array.isArray(list) ? (list as TlsEntry[]) : [];
}

export function IntrospectionOptions() {
  const { metadata, refresh } = useMetadata();
  const [disabled, setDisabled] = useState<string[]>(() => disabledRolesOf(metadata));
  // Roles typed in (or saved) stay listed once unchecked, until the page is left.
  const [listed, setListed] = useState<string[]>(() => disabledRolesOf(metadata));
  const [other, setOther] = useState('');
  const [status, run] = useAction();
  const roles = [...new Set([...knownRoles(metadata), ...listed, ...disabled])].sort();
  const toggle = (role: string, on: boolean) => setDisabled(on ? [...disabled, role] : disabled.filter((r) => r !== role));
  const save = () =>
    void run('Saving…', 'Saved the introspection options', async () => {
      await callMetadata('set_graphql_schema_introspection_options', { disabled_for_roles: disabled });
      await refresh();
    });
  return (
    <form
      className="editor"
      aria-label="Introspection"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <p className="muted">
        Roles checked here get an error for <code>__schema</code> and <code>__type</code>; admin always introspects.
      </p>
      <div className="row">
        {roles.length === 0 && <span className="muted">No role is named in the metadata yet.</span>}
        {roles.map((role) => (
          <label key={role}>
            <input type="checkbox" checked={disabled.includes(role)} onChange={(e) => toggle(role, e.target.checked)} /> {role}
          </label>
        ))}
      </div>
      <div className="row">
        <input className="short" aria-label="Another role" placeholder="role" value={other} onChange={(e) => setOther(e.target.value)} />
        <button
          type="button"
          className="btn small"
          onClick={() => {
            const role = other.trim();
            if (role !== '' && !disabled.includes(role)) setDisabled([...disabled, role]);
            if (role !== '' && !listed.includes(role)) setListed([...listed, role]);
            setOther('');
          }}
        >
          Refuse introspection to this role
        </button>
      </div>
      <Status value={status} />
      <button type="submit" className="btn primary">
        Save introspection options
      </button>
    </form>
  );
}

export function TlsAllowlist() {
  const { metadata, refresh } = useMetadata();
  const entries = allowlistOf(metadata);
  const [host, setHost] = useState('');
  const [port, setPort] = useState('');
  const [status, run] = useAction();
  const named = (e: TlsEntry) => (e.suffix === undefined ? e.host : `${e.host}:${e.suffix}`);
  const add = () =>
    void run('Adding…', `Allowed ${named({ host: host.trim(), ...(port.trim() === '' ? {} : { suffix: port.trim() }) })}`, async () => {
      if (host.trim() === '') throw new Error('A host is needed');
      if (port.trim() !== '' && !/^\d+$/.test(port.trim())) throw new Error(`The port must be a number, not ${JSON.stringify(port)}`);
      await callMetadata('add_host_to_tls_allowlist', {
        host: host.trim(),
        ...(port.trim() === '' ? {} : { suffix: port.trim() }),
        permissions: ['self-signed'],
      });
      setHost('');
      setPort('');
      await refresh();
    });
  const drop = (e: TlsEntry) =>
    void run('Removing…', `Removed ${named(e)}`, async () => {
      await callMetadata('drop_host_from_tls_allowlist', { host: e.host, ...(e.suffix === undefined ? {} : { suffix: e.suffix }) });
      await refresh();
    });
  return (
    <form
      className="editor"
      aria-label="Insecure TLS allow-list"
      onSubmit={(e) => {
        e.preventDefault();
        add();
      }}
    >
      <p className="muted">
        HTTPS calls to these hosts (remote schemas, action handlers, webhooks) accept a certificate that does not verify, such as a self-signed one. Without a
        port, every port of the host.
      </p>
      {entries.length === 0 ? (
        <p className="muted">No host is allowed.</p>
      ) : (
        <ul aria-label="Allowed hosts">
          {entries.map((e) => (
            <li key={named(e)}>
              <code>{named(e)}</code>{' '}
              <button type="button" className="btn small" aria-label={`Remove ${named(e)}`} onClick={() => drop(e)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="row">
        <input className="short" aria-label="Host" placeholder="host" value={host} onChange={(e) => setHost(e.target.value)} />
        <input className="short" aria-label="Port (optional)" placeholder="port" value={port} onChange={(e) => setPort(e.target.value)} />
      </div>
      <Status value={status} />
      <button type="submit" className="btn primary">
        Allow host
      </button>
    </form>
  );
}
