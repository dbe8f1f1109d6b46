import { randomUUID } from 'node:crypto';

/**
 * An id for a tool call that a compatible server sent without one: canonical tool calls always
 * carry an id, and the client must be able to answer it (uniquely, as Anthropic requires).
 */
export function generateToolCallId(): string {
  return `call_${randomUUID().replaceAll('-', '')}`;
}
