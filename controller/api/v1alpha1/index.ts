/**
 * Every kind of the `graphql.engine.dev/v1alpha1` API, in the order the CRDs are listed.
 */
import { actionKind } from './action.ts';
import type { KindDefinition } from './common.ts';
import { cronTriggerKind } from './cron-trigger.ts';
import { customTypesKind } from './custom-types.ts';
import { engineKind } from './engine.ts';
import { eventTriggerKind } from './event-trigger.ts';
import { functionKind } from './function.ts';
import { inheritedRoleKind } from './inherited-role.ts';
import { permissionKind } from './permission.ts';
import { queryCollectionKind } from './query-collection.ts';
import { remoteSchemaKind } from './remote-schema.ts';
import { restEndpointKind } from './rest-endpoint.ts';
import { sourceKind } from './source.ts';
import { trackedTableKind } from './tracked-table.ts';

/** The kinds whose resources declare metadata of an Engine (every kind but Engine). */
export const TARGET_KINDS: readonly KindDefinition[] = [
  sourceKind,
  trackedTableKind,
  permissionKind,
  remoteSchemaKind,
  eventTriggerKind,
  cronTriggerKind,
  functionKind,
  inheritedRoleKind,
  actionKind,
  customTypesKind,
  queryCollectionKind,
  restEndpointKind,
];

/** Every kind, Engine first. */
export const ALL_KINDS: readonly KindDefinition[] = [engineKind, ...TARGET_KINDS];
