/**
 * The controller's entry point: `node controller/main.ts` while developing; the image runs the
 * compiled `dist/controller/main.js` (`npm run build:controller`).
 *
 * Note [Compiled controller]
 * Node's type stripping is not free: loading the first .ts file brings in its TypeScript
 * transformer (a WebAssembly module), +17 MiB of RSS for a one-line file, and each module is
 * transformed at load. Measured for issue 36 on a real kube-apiserver, idle 15 s after start
 * without leader election, five runs each (median): `node controller/main.ts` 116.7 MiB RSS,
 * started in 828 ms; the same sources compiled by tsc, `node dist/controller/main.js`, 86.6 MiB
 * and 262 ms (an esbuild bundle: 86.4 MiB, no better). So the image builds and runs the compiled
 * files (Dockerfile.controller, controller/tsconfig.build.json: one .js per .ts, emit only),
 * tests and development keep running the sources, and a unit test builds and starts the compiled
 * entry point so the two cannot drift apart unnoticed.
 *
 * Settings (environment, as a Deployment passes them):
 *   KUBECONFIG                 kubeconfig files, merged as kubectl merges them (token, token file,
 *                              client certificate, exec plugin, OIDC); else ~/.kube/config; in a
 *                              pod the service account
 *   HTTPS_PROXY, HTTP_PROXY,   proxies as kubectl uses them (a cluster's proxy-url wins)
 *   NO_PROXY
 *   WATCH_NAMESPACE            watch one namespace (default: all)
 *   POD_NAMESPACE              where the leader-election Lease lives (default: default)
 *   POD_NAME                   this replica's identity (default: hostname-pid)
 *   LEADER_ELECTION            "false" to run without a Lease (single replica only)
 *   LEADER_ELECTION_ID         Lease name (default: graphql-engine-operator)
 *   LEASE_DURATION_SECONDS     Lease duration (default 15)
 *   RENEW_DEADLINE_MS          a leader that cannot renew for this long exits (default 10000)
 *   RETRY_PERIOD_MS            how often the Lease is renewed or tried (default 2000)
 *   WORKERS                    concurrent reconciles (default 2)
 *   ENGINE_TIMEOUT_MS          timeout of each metadata API call (default 10000)
 *   HEALTH_PORT                /healthz and /readyz (default 8081; 0 disables)
 *   METRICS_PORT               Prometheus /metrics (default 8080, as controller-runtime; 0 disables)
 *   LOG_LEVEL                  "debug" adds a line per reconcile (default info)
 */
import { createServer } from 'node:http';
import { homedir, hostname } from 'node:os';
import { GROUP } from './api/v1alpha1/common.ts';
import { Manager } from './manager.ts';
import { EventRecorder } from './runtime/events.ts';
import { ControllerMetrics } from './runtime/metrics.ts';
import { KubeApi } from './runtime/kube-api.ts';
import { loadKubeConnection } from './runtime/kube-connection.ts';
import { DEFAULT_LEASE_TIMING, LeaderElector } from './runtime/leader-election.ts';

function log(msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg, ...fields })}\n`);
}

function debugLog(msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'debug', msg, ...fields })}\n`);
}

function env(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** Starts the controller and resolves once it has shut down (SIGTERM/SIGINT). */
export async function main(): Promise<void> {
  const kube = new KubeApi(
    loadKubeConnection({
      kubeconfig: env('KUBECONFIG'),
      home: homedir(),
      serviceHost: env('KUBERNETES_SERVICE_HOST'),
      servicePort: env('KUBERNETES_SERVICE_PORT'),
      env: process.env,
    }),
  );
  log('kubernetes api', { server: kube.server, via: kube.connection.via });
  const identity = env('POD_NAME') ?? `${hostname()}-${process.pid}`;
  const events = new EventRecorder(kube, `${GROUP}/operator`, identity);
  const metrics = new ControllerMetrics();
  const leaseName = env('LEADER_ELECTION_ID') ?? 'graphql-engine-operator';
  metrics.leader.set({ name: leaseName }, 0);
  const manager = new Manager({
    metrics,
    kube,
    events,
    namespace: env('WATCH_NAMESPACE'),
    workers: Number(env('WORKERS') ?? 2),
    engineTimeoutMs: Number(env('ENGINE_TIMEOUT_MS') ?? 10_000),
    log,
    debug: env('LOG_LEVEL') === 'debug' ? debugLog : undefined,
  });
  manager.startInformers();

  let elector: LeaderElector | undefined;
  let shuttingDown = false;
  if (env('LEADER_ELECTION') === 'false') {
    void manager.startWorkers();
    metrics.leader.set({ name: leaseName }, 1);
    log('started without leader election', { identity });
  } else {
    elector = new LeaderElector(kube, {
      namespace: env('POD_NAMESPACE') ?? 'default',
      name: leaseName,
      identity,
      timing: {
        leaseDurationSeconds: Number(env('LEASE_DURATION_SECONDS') ?? DEFAULT_LEASE_TIMING.leaseDurationSeconds),
        renewDeadlineMs: Number(env('RENEW_DEADLINE_MS') ?? DEFAULT_LEASE_TIMING.renewDeadlineMs),
        retryPeriodMs: Number(env('RETRY_PERIOD_MS') ?? DEFAULT_LEASE_TIMING.retryPeriodMs),
      },
      onStartedLeading: () => {
        log('became leader', { identity });
        metrics.leader.set({ name: leaseName }, 1);
        void manager.startWorkers();
      },
      onStoppedLeading: () => {
        if (shuttingDown) return;
        // A replica that lost the lease must stop writing at once; exiting lets the Deployment
        // restart it as a clean standby (client-go's leaderelection does the same).
        log('lost leadership; exiting', { identity });
        process.exit(1);
      },
      onError: (err) => log('leader election error', { error: err.message }),
    });
    elector.start();
  }

  const port = Number(env('HEALTH_PORT') ?? 8081);
  const health =
    port === 0
      ? undefined
      : createServer((req, res) => {
          const ok = req.url === '/healthz' || (req.url === '/readyz' && manager.synced);
          res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'not ready');
        }).listen(port);

  const metricsPort = Number(env('METRICS_PORT') ?? 8080);
  const metricsServer =
    metricsPort === 0
      ? undefined
      : createServer((req, res) => {
          if (req.url !== '/metrics') {
            res.writeHead(404).end();
            return;
          }
          metrics.registry.metrics().then(
            (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
            (e: unknown) => res.writeHead(500).end(String(e)),
          );
        }).listen(metricsPort);

  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  log('shutting down', { identity });
  await manager.stopWorkers();
  // Release the lease so a standby takes over without waiting for it to expire; stopping
  // leadership here is expected, so the exit in onStoppedLeading must not fire.
  shuttingDown = true;
  await elector?.stop().catch(() => undefined);
  manager.stopInformers();
  health?.close();
  metricsServer?.close();
}

if (import.meta.main) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`controller failed: ${(e as Error).stack ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
