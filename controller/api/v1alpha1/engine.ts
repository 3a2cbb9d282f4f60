/**
 * The `Engine` kind: where an engine runs and how the controller reaches its metadata API, and
 * whether the resources of the namespace are the whole truth about its metadata.
 */
import { STANDARD_PRINTER_COLUMNS, type Condition, type CustomObject, type KindDefinition } from './common.ts';
import type { OpenApiSchema } from './structural.ts';

/** A reference to a key of a Secret in the Engine's namespace. */
export interface SecretKeyRef {
  readonly name: string;
  /** Defaults to `admin-secret`. */
  readonly key?: string;
}

/** A Service that fronts the engine's pods. */
export interface ServiceRef {
  readonly name: string;
  /** Defaults to 8080. */
  readonly port?: number;
  /** Defaults to `http`. */
  readonly scheme?: 'http' | 'https';
}

/**
 * `Merge` (default): metadata no resource declares is left alone; `Exclusive`: the resources are
 * the whole truth, everything else is removed from the engine.
 */
export type ManagementPolicy = 'Merge' | 'Exclusive';

/** The engine the operator runs itself: a Deployment and a Service named after the Engine. */
export interface EngineDeployment {
  /** Image repository. Default `graphql-engine`. */
  readonly image?: string;
  /** Image tag. */
  readonly version: string;
  /** Default 1. */
  readonly replicas?: number;
  /** The PostgreSQL URL of the `default` source (and of the metadata), from a Secret. */
  readonly databaseUrlSecretRef: SecretKeyRef;
  /** Container resources (`requests`, `limits`), as in a Pod spec. */
  readonly resources?: Readonly<Record<string, unknown>>;
  /** HTTP port. Default 8080. */
  readonly port?: number;
  /**
   * More environment of the engine container, as in a Pod spec (`value`, or `valueFrom` a Secret or
   * ConfigMap key): what action handler templates (`{{ACTION_BASE_URL}}`), header `value_from_env`
   * and the `ENGINE_GRAPHQL_*` settings (`ENGINE_GRAPHQL_ENABLE_ALLOWLIST`) read. The two variables
   * the operator sets itself (database URL, admin secret) are refused.
   */
  readonly env?: readonly EnvVar[];
}

/** A container environment variable (the subset of a Pod spec's EnvVar the engine needs). */
export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly secretKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly configMapKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
  };
}

/** Environment variables the operator sets on a deployed engine from the Engine's own fields. */
export const OPERATOR_SET_ENV = ['ENGINE_GRAPHQL_DATABASE_URL', 'ENGINE_GRAPHQL_ADMIN_SECRET'] as const;

const keyRefSchema = {
  type: 'object',
  required: ['name', 'key'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 253 },
    key: { type: 'string', minLength: 1, maxLength: 253 },
    optional: { type: 'boolean' },
  },
};

/** `Engine.spec`. */
export interface EngineSpec {
  /** Base URL of the engine (`http://engine.ns.svc:8080`); exactly one of url, serviceRef and deployment. */
  readonly url?: string;
  readonly serviceRef?: ServiceRef;
  /** Run the engine: a Deployment and Service owned by this Engine. */
  readonly deployment?: EngineDeployment;
  /** What deleting the Engine does to the metadata it manages: Orphan (default) leaves it, Delete removes it first. */
  readonly deletionPolicy?: 'Delete' | 'Orphan';
  /** The admin secret, sent as X-Engine-Admin-Secret. */
  readonly adminSecretRef?: SecretKeyRef;
  readonly managementPolicy?: ManagementPolicy;
  /** Re-read the whole metadata at least this often even without changes. Default 300. */
  readonly resyncSeconds?: number;
  /** Poll the engine's resource_version and health this often (drift and outages). Default 3. */
  readonly pollSeconds?: number;
  /** Probe the remote schemas through each replica's `/readyz?remotes=true` this often, to notice one that went down (0: never). Default 30. */
  readonly remoteCheckSeconds?: number;
}

/** `Engine.status`. */
export interface EngineStatus {
  readonly observedGeneration?: number;
  readonly conditions?: readonly Condition[];
  /** The engine's metadata resource_version after the last apply. */
  readonly metadataResourceVersion?: number;
  /** Keys of the metadata objects the controller declared at the last apply (see Note [Managed objects]). */
  readonly managedObjects?: readonly string[];
  /** How many resources target this engine. */
  readonly resources?: number;
  /** How many objects the engine reports inconsistent. */
  readonly inconsistentObjects?: number;
  /** Under the dry-run annotation: what applying would change (`+ key`, `~ key`, `- key`). */
  readonly plannedChanges?: readonly string[];
  /** Replica counts of the Deployment the Engine runs (spec.deployment). */
  readonly deployment?: { readonly replicas: number; readonly updatedReplicas: number; readonly readyReplicas: number; readonly availableReplicas: number };
}

/** An Engine object. */
export type Engine = CustomObject<EngineSpec, EngineStatus>;

const specSchema: OpenApiSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', maxLength: 2048, pattern: '^https?://', description: 'Base URL of the engine.' },
    serviceRef: {
      type: 'object',
      required: ['name'],
      description: 'A Service in this namespace in front of the engine pods.',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 63 },
        port: { type: 'integer', minimum: 1, maximum: 65535, default: 8080 },
        scheme: { type: 'string', enum: ['http', 'https'], default: 'http' },
      },
    },
    deployment: {
      type: 'object',
      required: ['version', 'databaseUrlSecretRef'],
      description: 'Run the engine: the operator owns a Deployment and a Service named after this Engine, and applies metadata once the rollout is available.',
      properties: {
        image: { type: 'string', minLength: 1, maxLength: 512, default: 'graphql-engine', description: 'Image repository.' },
        version: { type: 'string', minLength: 1, maxLength: 128, description: 'Image tag.' },
        replicas: { type: 'integer', minimum: 0, maximum: 100, default: 1 },
        databaseUrlSecretRef: {
          type: 'object',
          required: ['name'],
          description: 'Secret key holding the PostgreSQL URL (ENGINE_GRAPHQL_DATABASE_URL).',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 253 },
            key: { type: 'string', minLength: 1, maxLength: 253, default: 'database-url' },
          },
        },
        resources: {
          type: 'object',
          description: 'Container resources (requests, limits) as in a Pod spec.',
          properties: {
            requests: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
            limits: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
          },
        },
        port: { type: 'integer', minimum: 1, maximum: 65535, default: 8080 },
        env: {
          type: 'array',
          maxItems: 256,
          description:
            'More environment of the engine container (value, or valueFrom a Secret or ConfigMap key): action handler URLs, header values, ENGINE_GRAPHQL_* settings.',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 256, pattern: '^[-._a-zA-Z][-._a-zA-Z0-9]*$' },
              value: { type: 'string', maxLength: 32768 },
              valueFrom: {
                type: 'object',
                properties: { secretKeyRef: keyRefSchema, configMapKeyRef: keyRefSchema },
                'x-kubernetes-validations': [
                  { rule: 'has(self.secretKeyRef) != has(self.configMapKeyRef)', message: 'valueFrom has exactly one of secretKeyRef or configMapKeyRef' },
                ],
              },
            },
            'x-kubernetes-validations': [
              { rule: '!(has(self.value) && has(self.valueFrom))', message: 'an env entry has value or valueFrom, not both' },
              {
                rule: `!(self.name in [${OPERATOR_SET_ENV.map((n) => `'${n}'`).join(', ')}])`,
                message: 'the database URL and admin secret come from databaseUrlSecretRef and adminSecretRef',
              },
            ],
          },
        },
      },
    },
    deletionPolicy: {
      type: 'string',
      enum: ['Delete', 'Orphan'],
      default: 'Orphan',
      description: 'Deleting the Engine: Orphan leaves the metadata it manages in the engine; Delete removes it first.',
    },
    adminSecretRef: {
      type: 'object',
      required: ['name'],
      description: 'Secret key holding the admin secret.',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 253 },
        key: { type: 'string', minLength: 1, maxLength: 253, default: 'admin-secret' },
      },
    },
    managementPolicy: {
      type: 'string',
      enum: ['Merge', 'Exclusive'],
      default: 'Merge',
      description: 'Merge leaves metadata no resource declares alone; Exclusive removes it.',
    },
    resyncSeconds: { type: 'integer', minimum: 10, maximum: 86400, default: 300, description: 'Re-read the whole metadata at least this often.' },
    pollSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 3600,
      default: 3,
      description: "Poll the engine's resource_version and health this often, to notice edits made around the operator (drift) and outages.",
    },
    remoteCheckSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 86400,
      default: 30,
      description:
        "Probe the remote schemas this often through every replica's /readyz?remotes=true (a query { __typename } sent by the engine, which changes nothing: no reload), so that a remote that went down after the engine loaded it shows as RemoteUnavailable; 0 turns it off.",
    },
  },
  'x-kubernetes-validations': [
    {
      rule: '(has(self.url) ? 1 : 0) + (has(self.serviceRef) ? 1 : 0) + (has(self.deployment) ? 1 : 0) == 1',
      message: 'exactly one of url, serviceRef or deployment is required',
    },
  ],
};

/** The CRD description of Engine. */
export const engineKind: KindDefinition = {
  kind: 'Engine',
  plural: 'engines',
  singular: 'engine',
  shortNames: ['ge'],
  specSchema,
  statusProperties: {
    metadataResourceVersion: { type: 'integer', format: 'int64' },
    managedObjects: { type: 'array', items: { type: 'string', maxLength: 1024 }, 'x-kubernetes-list-type': 'set' },
    resources: { type: 'integer' },
    inconsistentObjects: { type: 'integer' },
    deployment: {
      type: 'object',
      description: 'Replica counts of the Deployment this Engine runs.',
      properties: {
        replicas: { type: 'integer' },
        updatedReplicas: { type: 'integer' },
        readyReplicas: { type: 'integer' },
        availableReplicas: { type: 'integer' },
      },
    },
    plannedChanges: {
      type: 'array',
      items: { type: 'string', maxLength: 1100 },
      maxItems: 101,
      description: 'Under the dry-run annotation: what applying would change.',
    },
  },
  printerColumns: [
    { name: 'URL', type: 'string', jsonPath: '.spec.url' },
    { name: 'Version', type: 'string', jsonPath: '.spec.deployment.version' },
    { name: 'Available', type: 'integer', jsonPath: '.status.deployment.availableReplicas', priority: 1 },
    { name: 'Resources', type: 'integer', jsonPath: '.status.resources' },
    { name: 'Inconsistent', type: 'integer', jsonPath: '.status.inconsistentObjects' },
    ...STANDARD_PRINTER_COLUMNS,
  ],
};
