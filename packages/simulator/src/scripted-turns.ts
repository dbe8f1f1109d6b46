import type { SimulatedMessage } from './simulated-request.js';

/**
 * Scripted turns let a test play an agent's tool loop through a real client:
 *
 * - `[[sim-call:NAME {"arg":"value"}]]` in the last user message makes the model call the tool
 *   NAME with exactly those arguments (the JSON object may be omitted: `{}`), whatever other tools
 *   the client offers. Once a tool result follows in a conversation that holds such a directive,
 *   the reply is `Tool result: ` followed by the whole result text, so the test can see that the
 *   client really ran the tool and sent its output back.
 * - `[[sim-text]]` makes the model answer in text although tools are offered (an agent CLI
 *   always offers its tools; without it the simulator would call the first one).
 *   `[[sim-text:some words]]` also fixes the words after the usual `Simulated reply from <model>:`
 *   prefix, since agent CLIs merge context of their own (working directory, date) into the user turn.
 */
const CALL_PATTERN = /\[\[sim-call:([A-Za-z0-9_.:-]+)\s*(\{[\s\S]*?\})?\s*\]\]/;
const TEXT_PATTERN = /\[\[sim-text(?::([^\]]*))?\]\]/;
const ANY_SCRIPT_PATTERN = /\[\[sim-(?:call:[^\]]*|text(?::[^\]]*)?)\]\]/g;

export interface ScriptedCall {
  name: string;
  input: Record<string, unknown>;
}

export class ScriptSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptSyntaxError';
  }
}

/** The call a `[[sim-call:…]]` directive asks for; throws when its arguments are not a JSON object. */
export function readScriptedCall(text: string): ScriptedCall | undefined {
  if (!text.includes('[[sim-call:')) return undefined;
  const match = CALL_PATTERN.exec(text);
  if (!match) throw new ScriptSyntaxError('sim-call needs a tool name, optionally followed by a JSON object of arguments');
  let input: unknown = {};
  if (match[2] !== undefined) {
    try {
      input = JSON.parse(match[2]);
    } catch {
      throw new ScriptSyntaxError(`sim-call arguments for ${match[1]} are not valid JSON`);
    }
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ScriptSyntaxError('sim-call arguments must be a JSON object');
  return { name: match[1], input: input as Record<string, unknown> };
}

export function asksForText(text: string): boolean {
  return text.includes('[[sim-text');
}

/** The words a `[[sim-text:…]]` directive fixes, when it gives any. */
export function scriptedText(text: string): string | undefined {
  if (!text.includes('[[sim-text:')) return undefined;
  const words = TEXT_PATTERN.exec(text)?.[1]?.trim();
  return words === '' ? undefined : words;
}

/** True when an earlier user message scripted a tool call, so a tool result ends the script. */
export function conversationIsScripted(messages: readonly SimulatedMessage[]): boolean {
  return messages.some((message) => message.role === 'user' && message.text.includes('[[sim-call:'));
}

/** The text without scripted-turn directives, so that they never echo into a reply. */
export function stripScriptDirectives(text: string): string {
  return text.includes('[[sim-') ? text.replace(ANY_SCRIPT_PATTERN, ' ') : text;
}
