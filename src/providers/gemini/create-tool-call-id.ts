/**
 * Gemini's `generateContent` gives function calls no id unless the model sends one, yet every
 * inbound style pairs tool results with calls by id. The id is derived from the response id and
 * the call's position: the same in a stream and in a whole response, and unique across the turns
 * of a conversation, which clients and other providers (after a fallback) rely on.
 */
export function createToolCallId(responseId: string | undefined, index: number, partId?: string): string {
  if (partId) return partId;
  return responseId ? `call_${responseId}_${index}` : `call_${index}`;
}
