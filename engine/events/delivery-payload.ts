/**
 * What a delivery sends and logs, in v2's shapes (docs: compat.md, "Webhook
 * payloads"): the body of an event trigger delivery, and the `request` and
 * `response` of an invocation log row.
 */
import type { LoggedEvent } from '../backends/backend.ts';
import type { EventTriggerInfo } from '../catalog/types.ts';
import type { WebhookResult } from './webhook-client.ts';

/** v2 compat: the body POSTed to an event trigger's webhook. */
export function deliveryBody(event: LoggedEvent, trigger: EventTriggerInfo): Record<string, unknown> {
  return {
    id: event.id,
    created_at: event.createdAt,
    trigger: { name: trigger.name },
    // The trigger's table, not the one the log names: for a partitioned table the capture runs on a partition.
    table: { schema: trigger.table.schema, name: trigger.table.name },
    event: {
      op: event.payload.op,
      data: event.payload.data,
      session_variables: event.payload.session_variables ?? null,
    },
    delivery_info: { current_retry: event.tries, max_retries: trigger.retry.numRetries },
  };
}

/** v2 compat: the `request` of an invocation log, as JSON text around the body's own text. */
export function loggedRequestJson(bodyText: string, headers: ReadonlyArray<readonly [string, string]>): string {
  return `{"payload":${bodyText},"headers":${JSON.stringify(headers.map(([name, value]) => ({ name, value })))},"version":"2"}`;
}

/** v2 compat: the `response` of an invocation log (`webhook_response` or `client_error`). */
export function loggedResponse(r: WebhookResult): unknown {
  if (r.kind === 'failure') return { type: 'client_error', data: { message: r.message }, version: '2' };
  return {
    type: 'webhook_response',
    data: { size: r.size, body: r.body, truncated: r.truncated, headers: r.headers.map(([name, value]) => ({ name, value })), status: r.status },
    version: '2',
  };
}
