import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { isAbsent } from '../shared/read-json-fields.js';

/**
 * The Responses API fields that depend on state the gateway does not keep (conversations,
 * background jobs, stored prompts): each is refused with a reason, except in the value
 * that asks for nothing stateful. Stored responses it does keep: `store` (default true) is
 * checked here, `previous_response_id` is resolved before decoding (see
 * `continue-previous-response.ts`).
 */
export function refuseStatefulFields(body: Record<string, unknown>): void {
  if (!isAbsent(body.store) && typeof body.store !== 'boolean') throw invalidRequest("'store' must be a boolean", 'store');
  if (!isAbsent(body.conversation)) {
    throw unsupportedParameter('conversation', 'is not supported; conversation objects are not kept, continue with previous_response_id or send the earlier items in input');
  }
  if (!isAbsent(body.background) && body.background !== false) {
    throw unsupportedParameter('background', 'is not supported; the gateway runs no background jobs for responses, it answers within the request (stream, or WebSocket mode, for long ones)');
  }
  if (!isAbsent(body.context_management) && !(Array.isArray(body.context_management) && body.context_management.length === 0)) {
    throw unsupportedParameter('context_management', 'is not supported; the gateway does not compact inside a response, compact the conversation with POST /v1/responses/compact');
  }
  if (!isAbsent(body.prompt)) {
    throw unsupportedParameter('prompt', 'is not supported; stored prompt templates live at OpenAI, send the prompt text in instructions and input');
  }
  if (!isAbsent(body.moderation)) {
    throw unsupportedParameter('moderation', 'is not supported; OpenAI-hosted moderation is not run by this gateway');
  }
}
