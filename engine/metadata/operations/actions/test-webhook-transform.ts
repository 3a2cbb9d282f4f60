/**
 * `test_webhook_transform`: answers the request a `request_transform` would
 * make of a sample, without sending it (engine/transforms/ does the work).
 */
import { resolveEnv } from '../../../cli/env.ts';
import { testWebhookTransform, type TestWebhookTransformArgs } from '../../../transforms/index.ts';
import { defineOperation } from '../../define.ts';
import { argPath } from '../../operation.ts';

/** The test-webhook-transform operation (a read: nothing is stored). */
export const testWebhookTransformOp = defineOperation<TestWebhookTransformArgs>({
  mutates: false,
  schema: {
    type: 'object',
    required: ['webhook_url', 'request_transform'],
    additionalProperties: false,
    properties: {
      webhook_url: {
        oneOf: [{ type: 'string' }, { type: 'object', required: ['from_env'], additionalProperties: false, properties: { from_env: { type: 'string' } } }],
      },
      body: {},
      request_transform: { type: 'object' },
      session_variables: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
      headers: {
        oneOf: [
          { type: 'object', additionalProperties: { type: 'string' } },
          { type: 'array', items: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 2 } },
        ],
      },
      env: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
  run(_ctx, args, call) {
    const out = testWebhookTransform(args, argPath(call), resolveEnv);
    return Promise.resolve({ response: { body: out.body ?? null, headers: out.headers, method: out.method, webhook_url: out.webhook_url } });
  },
});
