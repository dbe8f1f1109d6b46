import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { isAbsent } from '../shared/read-json-fields.js';

/**
 * The Responses API fields that depend on OpenAI keeping state (stored responses, conversations,
 * background jobs). The gateway keeps none, so each is refused with a
 * reason, except in the value that asks for nothing stateful.
 */
export function refuseStatefulFields(body: Record<string, unknown>): void {
  if (!isAbsent(body.store) && body.store !== false) {
    if (body.store === true) throw invalidRequest('store: true is not supported; this gateway keeps no response state', 'store');
    throw invalidRequest("'store' must be a boolean", 'store');
  }
  if (!isAbsent(body.previous_response_id)) {
    throw unsupportedParameter('previous_response_id', 'is not supported; this gateway keeps no response state, send the earlier items in input');
  }
  if (!isAbsent(body.conversation)) {
    throw unsupportedParameter('conversation', 'is not supported; this gateway keeps no conversation state, send the earlier items in input');
  }
  if (!isAbsent(body.background) && body.background !== false) {
    throw unsupportedParameter('background', 'is not supported; background responses need stored state, which this gateway does not keep');
  }
  if (!isAbsent(body.context_management) && !(Array.isArray(body.context_management) && body.context_management.length === 0)) {
    throw unsupportedParameter('context_management', 'is not supported; server-side compaction needs stored response state, which this gateway does not keep');
  }
  if (!isAbsent(body.prompt)) {
    throw unsupportedParameter('prompt', 'is not supported; stored prompt templates live at OpenAI, send the prompt text in instructions and input');
  }
  if (!isAbsent(body.moderation)) {
    throw unsupportedParameter('moderation', 'is not supported; OpenAI-hosted moderation is not run by this gateway');
  }
}
