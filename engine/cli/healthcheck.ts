#!/usr/bin/env node
/**
 * The image's HEALTHCHECK (Dockerfile): GET /healthz where the engine
 * listens, exit 0 on a 2xx answer and 1 otherwise. The port and host come
 * from the engine's own settings code (ENGINE_GRAPHQL_SERVER_PORT, v2's
 * HASURA_GRAPHQL_SERVER_PORT, default 8080), so the probe cannot disagree
 * with the server, as an inline copy of the default once could. Flags are
 * not seen here: the image sets the port by variable only.
 */
import { parseSettings, processEnv } from './settings.ts';

/** The host to probe: loopback for a wildcard bind, else the bound address. */
function probeHost(serverHost: string): string {
  if (serverHost === '0.0.0.0' || serverHost === '::' || serverHost === '') return '127.0.0.1';
  return serverHost.includes(':') ? `[${serverHost}]` : serverHost;
}

let ok = false;
try {
  const settings = parseSettings([], processEnv());
  // Under the HEALTHCHECK's own 3 s timeout.
  const res = await fetch(`http://${probeHost(settings.serverHost)}:${settings.serverPort}/healthz`, { signal: AbortSignal.timeout(2500) });
  ok = res.ok;
} catch {
  ok = false;
}
process.exit(ok ? 0 : 1);
