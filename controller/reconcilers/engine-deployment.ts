/**
 * An Engine with spec.deployment runs the engine itself: a Deployment and a Service named after
 * the Engine, owned by it (ownerReferences, so deleting the Engine deletes them), written with
 * server-side apply under the controller's field manager. Metadata is applied only once the
 * rollout is available (dependency ordering: an engine that is not up yet is waited for, not
 * reported unreachable), and the rollout shows in the Engine's conditions and status.
 *
 * While a rollout is not available the Engine is looked at every few seconds. Applying the same
 * objects again each time would be a PATCH the apiserver turns into nothing (issue 36.7: three
 * no-op PATCHes every 3 s), so an apply is remembered ({@link AppliedOwned}): while what the
 * Engine asks for is unchanged and the objects are as it left them (the Deployment's generation,
 * the Service's resourceVersion), they are only read. Someone else's edit of the Deployment's spec
 * moves its generation and is applied over again.
 */
import { createHash } from 'node:crypto';
import { OPERATOR_SET_ENV, type Engine, type EngineDeployment } from '../api/v1alpha1/engine.ts';
import { API_VERSION } from '../api/v1alpha1/common.ts';
import { PatchType, objectPath, type KubeApi } from '../runtime/kube-api.ts';

/** The field manager of everything the controller applies. */
export const FIELD_MANAGER = 'graphql-engine-operator';

/** Labels of the pods, Deployment and Service of one Engine. */
export function engineLabels(e: Engine): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'graphql-engine',
    'app.kubernetes.io/instance': e.metadata.name,
    'app.kubernetes.io/managed-by': FIELD_MANAGER,
  };
}

function ownerReference(e: Engine): Record<string, unknown> {
  // No blockOwnerDeletion: it would need update on engines/finalizers, which the controller
  // does not otherwise use (least privilege).
  return { apiVersion: API_VERSION, kind: 'Engine', name: e.metadata.name, uid: e.metadata.uid, controller: true };
}

/** The HTTP port of a deployed engine. */
export function enginePort(d: EngineDeployment): number {
  return d.port ?? 8080;
}

/** The Deployment an Engine runs. */
export function desiredDeployment(e: Engine, d: EngineDeployment): Record<string, unknown> {
  const labels = engineLabels(e);
  const selector = { 'app.kubernetes.io/name': labels['app.kubernetes.io/name'], 'app.kubernetes.io/instance': e.metadata.name };
  const port = enginePort(d);
  const env: Record<string, unknown>[] = [
    {
      name: 'ENGINE_GRAPHQL_DATABASE_URL',
      valueFrom: { secretKeyRef: { name: d.databaseUrlSecretRef.name, key: d.databaseUrlSecretRef.key ?? 'database-url' } },
    },
  ];
  const admin = e.spec.adminSecretRef;
  if (admin !== undefined)
    env.push({ name: 'ENGINE_GRAPHQL_ADMIN_SECRET', valueFrom: { secretKeyRef: { name: admin.name, key: admin.key ?? 'admin-secret' } } });
  // The user's own, after the operator's (the CRD refuses the two names above; skipped here too).
  for (const v of d.env ?? []) if (!(OPERATOR_SET_ENV as readonly string[]).includes(v.name)) env.push({ ...v });
  // Ready only when the engine reaches its databases (/readyz); alive as long as it answers (/healthz, v2's).
  const container: Record<string, unknown> = {
    name: 'engine',
    image: `${d.image ?? 'graphql-engine'}:${d.version}`,
    args: ['serve', '--server-host', '0.0.0.0', '--server-port', String(port)],
    env,
    ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }],
    readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 5 },
    livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10, failureThreshold: 6 },
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  };
  if (d.resources !== undefined) container['resources'] = d.resources;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: e.metadata.name, namespace: e.metadata.namespace, labels, ownerReferences: [ownerReference(e)] },
    spec: {
      replicas: d.replicas ?? 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [container],
        },
      },
    },
  };
}

/** The Service in front of an Engine's pods. */
export function desiredService(e: Engine, d: EngineDeployment): Record<string, unknown> {
  const labels = engineLabels(e);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: e.metadata.name, namespace: e.metadata.namespace, labels, ownerReferences: [ownerReference(e)] },
    spec: {
      selector: { 'app.kubernetes.io/name': labels['app.kubernetes.io/name'], 'app.kubernetes.io/instance': e.metadata.name },
      ports: [{ name: 'http', port: enginePort(d), targetPort: 'http', protocol: 'TCP' }],
    },
  };
}

/** Replica counts of a Deployment's status. */
export interface Rollout {
  readonly replicas: number;
  readonly updatedReplicas: number;
  readonly readyReplicas: number;
  readonly availableReplicas: number;
  /** True when the latest spec is rolled out and at least one replica is available. */
  readonly available: boolean;
  readonly message: string;
}

interface DeploymentObject {
  metadata: { generation?: number };
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; readyReplicas?: number; availableReplicas?: number };
}

/** `kubectl rollout status` in one function. */
export function rolloutOf(dep: DeploymentObject): Rollout {
  const st = dep.status ?? {};
  const want = dep.spec?.replicas ?? 1;
  const counts = {
    replicas: st.replicas ?? 0,
    updatedReplicas: st.updatedReplicas ?? 0,
    readyReplicas: st.readyReplicas ?? 0,
    availableReplicas: st.availableReplicas ?? 0,
  };
  const seen = (st.observedGeneration ?? 0) >= (dep.metadata.generation ?? 0);
  let message: string;
  if (!seen) message = 'waiting for the Deployment controller to see the latest spec';
  else if (counts.updatedReplicas < want) message = `${counts.updatedReplicas} of ${want} replicas updated`;
  else if (counts.replicas > counts.updatedReplicas) message = `${counts.replicas - counts.updatedReplicas} old replicas pending termination`;
  else if (counts.availableReplicas < Math.min(1, want) || counts.availableReplicas < counts.updatedReplicas)
    message = `${counts.availableReplicas} of ${counts.updatedReplicas} updated replicas available`;
  else message = `${counts.availableReplicas} of ${want} replicas available`;
  const available =
    seen && want > 0 && counts.updatedReplicas >= want && counts.replicas <= counts.updatedReplicas && counts.availableReplicas >= counts.updatedReplicas;
  return { ...counts, available, message };
}

/** Server-side applies one object the Engine owns and answers the object as stored. */
export async function applyOwned<T>(kube: KubeApi, obj: Record<string, unknown>): Promise<T> {
  const meta = obj['metadata'] as { name: string; namespace: string };
  const plural = obj['kind'] === 'Deployment' ? 'deployments' : 'services';
  const path = `${objectPath(String(obj['apiVersion']), plural, meta.namespace, meta.name)}?fieldManager=${FIELD_MANAGER}&force=true`;
  return await kube.request<T>('PATCH', path, obj, PatchType.Apply);
}

/** What the last apply of an Engine's Deployment and Service wrote, to tell whether applying again would change anything. */
export interface AppliedOwned {
  /** Digest of the desired Service and Deployment. */
  readonly digest: string;
  readonly deploymentGeneration: number | undefined;
  readonly serviceResourceVersion: string | undefined;
}

interface ServiceObject {
  metadata: { resourceVersion?: string };
}

/**
 * Applies the Deployment and Service of an Engine, unless `last` says they are already as desired
 * (then they are only read), and answers the Deployment's rollout and what to remember.
 */
export async function reconcileDeployment(
  kube: KubeApi,
  e: Engine,
  d: EngineDeployment,
  last?: AppliedOwned,
): Promise<{ rollout: Rollout; applied: AppliedOwned }> {
  const service = desiredService(e, d);
  const deployment = desiredDeployment(e, d);
  const digest = createHash('sha256')
    .update(JSON.stringify([service, deployment]))
    .digest('hex');
  if (last?.digest === digest) {
    const ns = e.metadata.namespace;
    const [svc, dep] = await Promise.all([
      kube.getOrNull<ServiceObject>(objectPath('v1', 'services', ns, e.metadata.name)),
      kube.getOrNull<DeploymentObject>(objectPath('apps/v1', 'deployments', ns, e.metadata.name)),
    ]);
    if (svc !== null && dep !== null && svc.metadata.resourceVersion === last.serviceResourceVersion && dep.metadata.generation === last.deploymentGeneration) {
      return { rollout: rolloutOf(dep), applied: last };
    }
  }
  const svc = await applyOwned<ServiceObject>(kube, service);
  const dep = await applyOwned<DeploymentObject>(kube, deployment);
  return { rollout: rolloutOf(dep), applied: { digest, deploymentGeneration: dep.metadata.generation, serviceResourceVersion: svc.metadata.resourceVersion } };
}
