/**
 * What every kind of the `graphql.engine.dev/v1alpha1` API shares: object metadata, the status
 * shape (kstatus-compatible conditions with observedGeneration), the `engineRef` and
 * `deletionPolicy` fields, and the description of a kind that generate-crds.ts turns into a CRD.
 */
import type { OpenApiSchema } from './structural.ts';

/** The API group of every kind. */
export const GROUP = 'graphql.engine.dev';
/** The only served (and storage) version. */
export const VERSION = 'v1alpha1';
/** `apiVersion` of every object of this API. */
export const API_VERSION = `${GROUP}/${VERSION}`;
/** The one finalizer the controller adds (architecture.md naming). */
export const FINALIZER = `${GROUP}/finalizer`;
/**
 * Annotation on an Engine: while it is "true" nothing is written to that engine; status.plannedChanges
 * lists what would change, and resources whose objects would change say so in their Ready condition.
 */
export const DRY_RUN_ANNOTATION = `${GROUP}/dry-run`;
/** The `kubectl get <category>` that lists every kind of this API. */
export const CATEGORY = 'graphql-engine';

/** The part of Kubernetes object metadata the controller reads. */
export interface ObjectMeta {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly generation?: number;
  readonly resourceVersion?: string;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly finalizers?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A `metav1.Condition`. */
export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime: string;
}

/** Status of every kind except Engine (which adds its own fields). */
export interface ResourceStatus {
  readonly observedGeneration?: number;
  readonly conditions?: readonly Condition[];
}

/** Names the Engine a resource belongs to (same namespace). */
export interface EngineRef {
  readonly name: string;
}

/** What deleting a resource does to the metadata it declared. */
export type DeletionPolicy = 'Delete' | 'Orphan';

/** The fields every metadata-declaring kind has besides its metadata object. */
export interface TargetFields {
  /** Defaults to the only Engine of the namespace. */
  readonly engineRef?: EngineRef;
  /** `Delete` (default) removes the declared metadata when the resource is deleted; `Orphan` leaves it. */
  readonly deletionPolicy?: DeletionPolicy;
}

/** A custom object of this API, typed by its spec and status. */
export interface CustomObject<S, St = ResourceStatus> {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly spec: S;
  readonly status?: St;
}

/** An additional printer column of a CRD. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date' | 'boolean' | 'number';
  readonly jsonPath: string;
  readonly priority?: number;
  readonly description?: string;
}

/** A CEL rule (`x-kubernetes-validations` entry). */
export interface CelRule {
  readonly rule: string;
  readonly message: string;
}

/** Everything generate-crds.ts needs to write one CRD. */
export interface KindDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  /** Structural OpenAPI schema of `.spec`. */
  readonly specSchema: OpenApiSchema;
  /** Extra status properties next to `observedGeneration` and `conditions`. */
  readonly statusProperties?: Readonly<Record<string, OpenApiSchema>>;
  /** Columns shown before Ready/Reason/Age. */
  readonly printerColumns?: readonly PrinterColumn[];
  /** CEL rules on the whole object (the only place a rule can read metadata.name). */
  readonly objectRules?: readonly CelRule[];
}

/** Schema of one `metav1.Condition`, as Kubernetes itself declares it. */
export const conditionSchema: OpenApiSchema = {
  type: 'object',
  required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
  properties: {
    type: {
      type: 'string',
      maxLength: 316,
      pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    reason: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' },
    message: { type: 'string', maxLength: 32768 },
  },
};

/** Schema of the status every kind has. */
export function statusSchema(extra: Readonly<Record<string, OpenApiSchema>> = {}): OpenApiSchema {
  return {
    type: 'object',
    properties: {
      observedGeneration: { type: 'integer', format: 'int64', description: 'The metadata.generation the controller last acted on.' },
      conditions: {
        type: 'array',
        items: conditionSchema,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
        description: 'Ready, Reconciling and Stalled (kstatus), with observedGeneration.',
      },
      ...extra,
    },
  };
}

/** Schema of `engineRef`. */
export const engineRefSchema: OpenApiSchema = {
  type: 'object',
  required: ['name'],
  description: 'The Engine in this namespace that receives this metadata. Defaults to the only Engine of the namespace.',
  properties: { name: { type: 'string', minLength: 1, maxLength: 253 } },
};

/** Schema of `deletionPolicy`. */
export const deletionPolicySchema: OpenApiSchema = {
  type: 'string',
  enum: ['Delete', 'Orphan'],
  default: 'Delete',
  description: 'Delete removes the declared metadata from the engine when this resource is deleted; Orphan leaves it there.',
};

/** Schema of a resource-level metadata name that defaults to metadata.name. */
export const optionalNameSchema: OpenApiSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 253,
  description: 'Name of the metadata object; defaults to metadata.name of this resource.',
};

/** Ready, Reason and Age: the columns every kind shows last. */
export const STANDARD_PRINTER_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
  { name: 'Message', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].message', priority: 1 },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

/** `metadata.name` of the object, the name a metadata object gets when the spec has none. */
export function nameOr(spec: { readonly name?: string }, meta: ObjectMeta): string {
  return spec.name ?? meta.name;
}
