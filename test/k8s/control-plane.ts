/**
 * A real Kubernetes control plane for tests: etcd + kube-apiserver on loopback ports, built by
 * test/k8s/build-apiserver.sh and cached outside the repository. No kubelet, no
 * controller-manager: objects are stored and watched, but nothing garbage-collects or runs pods
 * (operator-notes.md §2), which is all an operator test needs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, fetch } from 'undici';
import { freePort } from '../support/engine-process.ts';
import { eventually } from '../support/eventually.ts';

/** The Kubernetes release the build script builds by default. */
export const K8S_VERSION = process.env['K8S_VERSION'] ?? 'v1.33.13';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where the binaries are, or why they are not usable. */
export function findBinaries(): { dir: string; apiserver: string; etcd: string; kubectl: string } | { missing: string } {
  const dir = process.env['ENGINE_K8S_BIN'] ?? path.join(process.env['ENGINE_K8S_CACHE'] ?? path.join(homedir(), '.cache', 'engine-k8s'), K8S_VERSION);
  const apiserver = path.join(dir, 'kube-apiserver');
  const etcd = path.join(dir, 'etcd');
  if (!existsSync(apiserver) || !existsSync(etcd)) return { missing: `kube-apiserver/etcd not found in ${dir}; build them with test/k8s/build-apiserver.sh` };
  const kubectl = process.env['KUBECTL'] ?? 'kubectl';
  if (spawnSync(kubectl, ['version', '--client'], { stdio: 'ignore' }).status !== 0) return { missing: `${kubectl} not found` };
  return { dir, apiserver, etcd, kubectl };
}

/** A running etcd + kube-apiserver. */
export interface ControlPlane {
  readonly server: string;
  readonly kubeconfig: string;
  readonly token: string;
  readonly dir: string;
  /**
   * A kubeconfig for the operator's ServiceAccount (graphql-engine-system/graphql-engine-operator),
   * authenticated by a static token, so RBAC from config/rbac is what it is allowed to do.
   */
  readonly operatorKubeconfig: string;
  /** Runs kubectl against the control plane; throws on a non-zero exit. */
  kubectl(args: readonly string[], input?: string): string;
  /** Stops kube-apiserver, waits, and starts it again on the same port and etcd. */
  restartApiserver(downMs: number): Promise<void>;
  /** kubectl apply of a JSON/YAML document on stdin. */
  apply(manifest: unknown): string;
  /** What the apiserver has audited so far: every create, update, patch and delete, and reads of Deployments. */
  audit(): AuditEvent[];
  stop(): Promise<void>;
}

/** One entry of the apiserver's audit log (level Metadata, stage ResponseComplete). */
export interface AuditEvent {
  readonly verb: string;
  readonly user: { readonly username: string };
  readonly objectRef?: { readonly resource?: string; readonly namespace?: string; readonly name?: string; readonly subresource?: string };
  readonly responseStatus?: { readonly code?: number };
  readonly stageTimestamp: string;
}

/** Waits (bounded) until `check` holds, giving up when the process exits. */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, child: ChildProcess, log: () => string): Promise<void> {
  await eventually(check, {
    what: `${what} to be ready`,
    timeoutMs,
    intervalMs: 250,
    context: () => log().slice(-4000),
    giveUp: () => (child.exitCode === null ? undefined : `${what} exited with ${child.exitCode}`),
  });
}

function startProcess(bin: string, args: string[]): { child: ChildProcess; log: () => string } {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (c: Buffer): void => {
    out += c.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, log: () => out };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts etcd and kube-apiserver and installs the CRDs of crds/. A port taken
 * between `freePort` and the bind (a server of another test file running at
 * the same time: "bind: address already in use" in the process's log) starts
 * it all again on new ports, at most three times.
 */
export async function startControlPlane(): Promise<ControlPlane> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startControlPlaneOnce();
    } catch (e) {
      if (attempt >= 3 || !(e instanceof Error) || !e.message.includes('address already in use')) throw e;
    }
  }
}

async function startControlPlaneOnce(): Promise<ControlPlane> {
  const bins = findBinaries();
  if ('missing' in bins) throw new Error(bins.missing);
  const dir = mkdtempSync(path.join(tmpdir(), 'engine-k8s-'));
  const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
  const etcd = startProcess(bins.etcd, [
    '--name=test',
    `--data-dir=${path.join(dir, 'etcd')}`,
    `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
    `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
    `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-cluster=test=http://127.0.0.1:${etcdPeer}`,
    '--unsafe-no-fsync=true',
    '--log-level=warn',
  ]);
  let apiserver: ReturnType<typeof startProcess> | undefined;
  try {
    await waitFor('etcd', async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`)).ok, 30_000, etcd.child, etcd.log);

    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(path.join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    writeFileSync(path.join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    // Writes are audited, so tests can count what the controller sends (reads mostly not: too many).
    const auditLog = path.join(dir, 'audit.log');
    writeFileSync(
      path.join(dir, 'audit-policy.json'),
      JSON.stringify({
        apiVersion: 'audit.k8s.io/v1',
        kind: 'Policy',
        omitStages: ['RequestReceived'],
        rules: [
          { level: 'Metadata', verbs: ['create', 'update', 'patch', 'delete'] },
          // Reads of Deployments too: how often an Engine's rollout is looked at.
          { level: 'Metadata', verbs: ['get'], resources: [{ group: 'apps', resources: ['deployments'] }] },
          { level: 'None' },
        ],
      }),
    );
    const token = `admin-${Math.random().toString(36).slice(2)}`;
    // token,user,uid,"groups": the admin is in system:masters, which bypasses RBAC.
    const operatorToken = `operator-${Math.random().toString(36).slice(2)}`;
    const operatorUser = 'system:serviceaccount:graphql-engine-system:graphql-engine-operator';
    writeFileSync(
      path.join(dir, 'tokens.csv'),
      `${token},admin,admin-uid,"system:masters"\n${operatorToken},${operatorUser},operator-uid,"system:serviceaccounts,system:serviceaccounts:graphql-engine-system,system:authenticated"\n`,
    );
    const server = `https://127.0.0.1:${apiPort}`;
    const apiserverArgs = [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      `--secure-port=${apiPort}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--cert-dir=${path.join(dir, 'certs')}`,
      `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
      `--service-account-issuer=${server}`,
      `--service-account-key-file=${path.join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${path.join(dir, 'sa.key')}`,
      '--authorization-mode=RBAC',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--disable-admission-plugins=ServiceAccount',
      '--allow-privileged=true',
      '--event-ttl=1h',
      `--audit-policy-file=${path.join(dir, 'audit-policy.json')}`,
      `--audit-log-path=${auditLog}`,
      '--v=0',
    ];
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    const bootApiserver = async (): Promise<ReturnType<typeof startProcess>> => {
      const p = startProcess(bins.apiserver, apiserverArgs);
      apiserver = p;
      await waitFor(
        'kube-apiserver',
        async () => (await fetch(`${server}/readyz`, { headers: { authorization: `Bearer ${token}` }, dispatcher: insecure })).ok,
        120_000,
        p.child,
        p.log,
      );
      return p;
    };
    const started = Date.now();
    let current = await bootApiserver();
    const readyMs = Date.now() - started;

    const writeKubeconfig = (file: string, userToken: string): string => {
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'test', cluster: { server, 'insecure-skip-tls-verify': true } }],
          users: [{ name: 'user', user: { token: userToken } }],
          contexts: [{ name: 'test', context: { cluster: 'test', user: 'user', namespace: 'default' } }],
          'current-context': 'test',
        }),
      );
      return file;
    };
    const kubeconfig = writeKubeconfig(path.join(dir, 'kubeconfig'), token);
    const operatorKubeconfig = writeKubeconfig(path.join(dir, 'operator.kubeconfig'), operatorToken);
    const kubectl = (args: readonly string[], input?: string): string => {
      // maxBuffer: spawnSync's default (1 MiB) is less than a list of 1,000 resources.
      const r = spawnSync(bins.kubectl, ['--kubeconfig', kubeconfig, ...args], { input, encoding: 'utf8', cwd: repoRoot, maxBuffer: 256 * 1024 * 1024 });
      if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${r.stderr}${r.stdout}`);
      return r.stdout;
    };
    kubectl(['apply', '-k', path.join(repoRoot, 'crds')]);
    kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '-l', '!nonexistent-label']);
    return {
      server,
      kubeconfig,
      token,
      dir,
      operatorKubeconfig,
      kubectl,
      async restartApiserver(downMs: number) {
        await stopProcess(current.child);
        await new Promise((r) => setTimeout(r, downMs));
        current = await bootApiserver();
      },
      apply: (manifest) => kubectl(['apply', '-f', '-'], typeof manifest === 'string' ? manifest : JSON.stringify(manifest)),
      audit: () =>
        existsSync(auditLog)
          ? readFileSync(auditLog, 'utf8')
              .split('\n')
              .filter((l) => l.trim() !== '')
              .map((l) => JSON.parse(l) as AuditEvent)
          : [],
      async stop() {
        await stopProcess(current.child);
        await stopProcess(etcd.child);
        rmSync(dir, { recursive: true, force: true });
      },
      toString: () => `control plane at ${server} (ready after ${readyMs} ms)`,
    } as ControlPlane;
  } catch (e) {
    // Never leave etcd running when the apiserver fails to start (envtest's classic leak).
    if (apiserver !== undefined) await stopProcess(apiserver.child);
    await stopProcess(etcd.child);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
