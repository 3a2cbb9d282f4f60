/**
 * The image's CMD and HEALTHCHECK agree on the port (issue 29, point 8).
 * There is no Docker engine here: this reads the Dockerfile's text and runs
 * the health check script it names as a real process against a real HTTP
 * server. It does not build the image nor run a container.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../../engine/cli/settings.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The final stage's instructions, continuation lines joined. */
function finalStage(): string[] {
  const text = readFileSync(path.join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  const from = lines.map((l, i) => (/^FROM\s/i.test(l) ? i : -1)).filter((i) => i >= 0);
  return lines.slice(from.at(-1));
}

/** The exec-form JSON array of the final stage's `instruction`. */
function execForm(instruction: string): string[] {
  const line = finalStage().find((l) => new RegExp(`^${instruction}\\s`, 'i').test(l));
  if (line === undefined) throw new Error(`no ${instruction} in the final stage`);
  const json = /\[.*\]\s*$/.exec(line)?.[0];
  if (json === undefined) throw new Error(`${instruction} is not in exec form: ${line}`);
  return JSON.parse(json) as string[];
}

describe('Dockerfile', () => {
  it('passes no --server-port or --server-host in CMD or ENTRYPOINT, which would win over the variables the probe reads', () => {
    const command = [...execForm('ENTRYPOINT'), ...execForm('CMD')];
    expect(command).toEqual(['node', 'engine/main.ts', 'serve']);
  });

  it("probes with the engine's own settings code, and exposes the default port", () => {
    expect(execForm('HEALTHCHECK')).toEqual(['node', 'engine/cli/healthcheck.ts']);
    const expose = finalStage().find((l) => /^EXPOSE\s/i.test(l));
    expect(expose?.split(/\s+/)[1]).toBe(String(defaultSettings().serverPort));
  });
});

describe('engine/cli/healthcheck.ts (the HEALTHCHECK command)', () => {
  let status = 200;
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.writeHead(req.url === '/healthz' ? status : 404);
      res.end('OK');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function probe(env: Record<string, string>): Promise<number | null> {
    const child = spawn(process.execPath, ['engine/cli/healthcheck.ts'], { cwd: root, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: 'ignore' });
    return await new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  it('is healthy on the port of ENGINE_GRAPHQL_SERVER_PORT or HASURA_GRAPHQL_SERVER_PORT, as the engine reads them', async () => {
    status = 200;
    expect(await probe({ ENGINE_GRAPHQL_SERVER_PORT: String(port) })).toBe(0);
    expect(await probe({ HASURA_GRAPHQL_SERVER_PORT: String(port) })).toBe(0);
    expect(await probe({ ENGINE_GRAPHQL_SERVER_PORT: String(port), ENGINE_GRAPHQL_SERVER_HOST: '127.0.0.1' })).toBe(0);
  });

  it('is unhealthy when /healthz fails or nothing listens', async () => {
    status = 500;
    expect(await probe({ ENGINE_GRAPHQL_SERVER_PORT: String(port) })).toBe(1);
    status = 200;
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await probe({ ENGINE_GRAPHQL_SERVER_PORT: String(closedPort) })).toBe(1);
  });
});
