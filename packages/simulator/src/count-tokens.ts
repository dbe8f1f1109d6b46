/**
 * The simulator's tokenizer: one token per whitespace-separated word. Real tokenizers differ per
 * vendor; a rule anyone can compute by hand lets end-to-end tests assert exact usage and cost.
 */

/** Tokens added for every input message (system instruction and tool results included). */
export const MESSAGE_OVERHEAD_TOKENS = 3;

/** Completion tokens charged for each tool call, whatever its arguments. */
export const TOOL_CALL_TOKENS = 10;

export function countWords(text: string): number {
  let count = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // Space, tab, line feed, vertical tab, form feed, carriage return.
    const isSpace = code === 32 || (code >= 9 && code <= 13);
    if (!isSpace && !inWord) count++;
    inWord = !isSpace;
  }
  return count;
}

export function countPromptTokens(messages: readonly { text: string }[]): number {
  let total = 0;
  for (const message of messages) total += countWords(message.text) + MESSAGE_OVERHEAD_TOKENS;
  return total;
}
