/**
 * The `Engine` kind: where an engine runs and how the controller reaches its metadata API, and
 * whether the resources of the namespace are the whole truth about its metadata.
 */
import {
  STANDARD_PRINTER_COLUMNS,
  type Condition,
  type CustomObject,
  type KindDefinition,
} from './common.ts';
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

/** `Engine.spec`. */
export interface EngineSpec {
  /** Base URL of the engine (`http://engine.ns.svc:8080`); exactly one of url and serviceRef. */
  readonly url?: string;
  readonly serviceRef?: ServiceRef;
  /** The admin secret, sent as X-Engine-Admin-Secret. */
  readonly adminSecretRef?: SecretKeyRef;
  readonly managementPolicy?: ManagementPolicy;
  /** Re-read the whole metadata at least this often even without changes. Default 300. */
  readonly resyncSeconds?: number;
  /** Poll the engine's resource_version and health this often (drift and outages). Default 3. */
  readonly pollSeconds?: number;
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
  },
  'x-kubernetes-validations': [
    { rule: 'has(self.url) != has(self.serviceRef)', message: 'exactly one of url or serviceRef is required' },
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
    plannedChanges: { type: 'array', items: { type: 'string', maxLength: 1100 }, maxItems: 101, description: 'Under the dry-run annotation: what applying would change.' },
  },
  printerColumns: [
    { name: 'URL', type: 'string', jsonPath: '.spec.url' },
    { name: 'Resources', type: 'integer', jsonPath: '.status.resources' },
    { name: 'Inconsistent', type: 'integer', jsonPath: '.status.inconsistentObjects' },
    ...STANDARD_PRINTER_COLUMNS,
  ],
};
