/**
 * Webhook transforms (request_transform, response_transform) and the Kriti
 * template language. The exported API; see README.md.
 */
export {
  applyRequestTransform,
  compileRequestTransform,
  templateError,
  type CompiledRequestTransform,
  type RequestBodyTransform,
  type RequestTransformDefinition,
  type TransformedRequest,
  type TransformSession,
  type WebhookRequest,
} from './request-transform.ts';
export {
  applyResponseTransform,
  compileResponseTransform,
  type CompiledResponseTransform,
  type ResponseTransformContext,
  type ResponseTransformDefinition,
} from './response-transform.ts';
export { testWebhookTransform, type TestWebhookTransformArgs, type TestWebhookTransformResult } from './test-webhook-transform.ts';
export { resolveUrlTemplate, urlTemplateVariables } from './url-template.ts';
export * as kriti from './kriti/index.ts';
