export interface StreamEvent {
  type: string;
  [field: string]: unknown;
}

/**
 * One Responses stream event as an SSE frame. OpenAI names each event in the `event:` line and
 * repeats it as `type` in the data; JSON.stringify escapes newlines, so `data` stays one line.
 */
export function formatSseEvent(event: StreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
