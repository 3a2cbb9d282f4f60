/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects are JSON, asserted structurally */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../controller/api/v1alpha1/engine.ts';
import { desiredDeployment, desiredService, rolloutOf } from '../../../controller/reconcilers/engine-deployment.ts';
import { engineUrl } from '../../../controller/reconcilers/resolve.ts';

const engine: Engine = {
  apiVersion: 'graphql.engine.dev/v1alpha1',
  kind: 'Engine',
  metadata: { name: 'shop', namespace: 'team-b', uid: 'uid-1', generation: 1 },
  spec: {
    deployment: { image: 'ghcr.io/x/engine', version: '1.2.3', replicas: 2, databaseUrlSecretRef: { name: 'db' }, resources: { limits: { memory: '512Mi' } } },
    adminSecretRef: { name: 'admin', key: 'secret' },
  },
};

describe('the Deployment and Service of an Engine', () => {
  it('runs the image as uid 1000 with both secrets from Secrets, owned by the Engine', () => {
    const d = desiredDeployment(engine, engine.spec.deployment!) as any;
    expect(d.metadata.ownerReferences).toEqual([{ apiVersion: 'graphql.engine.dev/v1alpha1', kind: 'Engine', name: 'shop', uid: 'uid-1', controller: true }]);
    expect(d.spec.replicas).toBe(2);
    const c = d.spec.template.spec.containers[0];
    expect(c.image).toBe('ghcr.io/x/engine:1.2.3');
    expect(c.env).toEqual([
      { name: 'ENGINE_GRAPHQL_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'database-url' } } },
      { name: 'ENGINE_GRAPHQL_ADMIN_SECRET', valueFrom: { secretKeyRef: { name: 'admin', key: 'secret' } } },
    ]);
    expect(c.resources).toEqual({ limits: { memory: '512Mi' } });
    // The user's environment (an action handler's base URL, the allow-list switch) follows the operator's.
    const withEnv = desiredDeployment(engine, {
      ...engine.spec.deployment!,
      env: [
        { name: 'ACTION_BASE_URL', value: 'http://actions.team-b.svc' },
        { name: 'ENGINE_GRAPHQL_ENABLE_ALLOWLIST', valueFrom: { configMapKeyRef: { name: 'engine-settings', key: 'allowlist' } } },
        { name: 'ENGINE_GRAPHQL_ADMIN_SECRET', value: 'not this way' },
      ],
    }) as any;
    expect(withEnv.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name)).toEqual([
      'ENGINE_GRAPHQL_DATABASE_URL',
      'ENGINE_GRAPHQL_ADMIN_SECRET',
      'ACTION_BASE_URL',
      'ENGINE_GRAPHQL_ENABLE_ALLOWLIST',
    ]);
    expect(withEnv.spec.template.spec.containers[0].env[3]).toEqual({
      name: 'ENGINE_GRAPHQL_ENABLE_ALLOWLIST',
      valueFrom: { configMapKeyRef: { name: 'engine-settings', key: 'allowlist' } },
    });
    // Ready once the engine reaches its databases; alive while it answers.
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(d.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(d.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'graphql-engine', 'app.kubernetes.io/instance': 'shop' });
    const s = desiredService(engine, engine.spec.deployment!) as any;
    expect(s.spec.selector).toEqual(d.spec.selector.matchLabels);
    expect(engineUrl(engine)).toBe('http://shop.team-b.svc:8080');
  });

  it('reads the rollout as kubectl rollout status does', () => {
    const dep = (
      gen: number,
      status: Record<string, number>,
    ): { metadata: { generation: number }; spec: { replicas: number }; status: Record<string, number> } => ({
      metadata: { generation: gen },
      spec: { replicas: 2 },
      status,
    });
    expect(rolloutOf(dep(2, { observedGeneration: 1, replicas: 2, updatedReplicas: 2, availableReplicas: 2 }))).toMatchObject({
      available: false,
      message: 'waiting for the Deployment controller to see the latest spec',
    });
    expect(rolloutOf(dep(2, { observedGeneration: 2, replicas: 3, updatedReplicas: 1, availableReplicas: 2 }))).toMatchObject({
      available: false,
      message: '1 of 2 replicas updated',
    });
    expect(rolloutOf(dep(2, { observedGeneration: 2, replicas: 3, updatedReplicas: 2, availableReplicas: 2 }))).toMatchObject({
      available: false,
      message: '1 old replicas pending termination',
    });
    expect(rolloutOf(dep(2, { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 1 }))).toMatchObject({
      available: false,
      message: '1 of 2 updated replicas available',
    });
    expect(rolloutOf(dep(2, { observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 }))).toMatchObject({
      available: true,
      availableReplicas: 2,
    });
  });
});
