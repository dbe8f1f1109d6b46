import type { StreamPart } from '../core/stream-part.js';
import type { TextResult } from '../core/text-result.js';

/**
 * A complete answer as stream parts, for a streamed request whose answer the gateway assembled
 * over several model turns (its hosted-tool loop): the tool calls it ran first, as a provider
 * running the tool streams them, then the answer's content, its citations, and the finish with
 * the charged cost.
 */
export async function* streamResult(result: TextResult, cost: bigint, callsSent = false): AsyncIterable<StreamPart> {
  // The start and the tool calls went out as they happened (see stream-hosted-tool-loop.ts).
  if (!callsSent) {
    yield { type: 'start', ...(result.providerResponseId !== undefined && { providerResponseId: result.providerResponseId }), ...(result.providerModel !== undefined && { providerModel: result.providerModel }) };
    for (const call of result.hostedCalls ?? []) yield { type: 'hosted-tool-call', call };
  }
  let toolIndex = 0;
  for (const part of result.content) {
    switch (part.type) {
      case 'text':
        if (part.text !== '') yield { type: 'text-delta', text: part.text };
        for (const citation of part.citations ?? []) yield { type: 'citation', citation, textLength: part.text.length };
        break;
      case 'reasoning':
        if (part.redactedData !== undefined) {
          yield { type: 'reasoning-redacted', data: part.redactedData };
          break;
        }
        if (part.text !== '') yield { type: 'reasoning-delta', text: part.text };
        if (part.signature !== undefined) yield { type: 'reasoning-signature', signature: part.signature };
        break;
      case 'tool-call':
        yield { type: 'tool-call-start', index: toolIndex, id: part.id, name: part.name };
        if (part.arguments !== '') yield { type: 'tool-call-delta', index: toolIndex, argumentsDelta: part.arguments };
        toolIndex += 1;
        break;
    }
  }
  yield {
    type: 'finish',
    finishReason: result.finishReason,
    ...(result.stopSequence !== undefined && { stopSequence: result.stopSequence }),
    ...(result.stopDetails !== undefined && { stopDetails: result.stopDetails }),
    usage: result.usage,
    cost,
  };
}
