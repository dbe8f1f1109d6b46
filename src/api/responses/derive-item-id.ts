export type ItemKind = 'message' | 'function_call' | 'reasoning';

// OpenAI's own prefixes, so that ids look familiar in client logs.
const prefixes: Record<ItemKind, string> = { message: 'msg', function_call: 'fc', reasoning: 'rs' };

/**
 * Output item ids derive from the response id and the item's position, so the streamed and the
 * non-streamed encodings of one generation name their items alike, with no id generator needed.
 */
export function deriveItemId(kind: ItemKind, responseId: string, outputIndex: number): string {
  return `${prefixes[kind]}_${responseId}_${outputIndex}`;
}
