import type { AssistantContentPart, ReasoningPart, TextPart, ToolCallPart } from '../core/content.js';
import type { HostedToolCall } from '../core/hosted-tool-call.js';
import type { StreamPart } from '../core/stream-part.js';
import type { TextResult } from '../core/text-result.js';

/**
 * Passes a stream's parts on unchanged and, when it ends with its `finish` (not an `error`, not cut
 * off because the client left), calls `complete` with the answer assembled from them and the cost
 * the meter put on the finish: what the cache stores of a streamed answer. A stream that failed or
 * was cut never reaches `complete`.
 */
export async function* collectStreamResult(parts: AsyncIterable<StreamPart>, complete: (result: TextResult, cost: bigint) => void): AsyncIterable<StreamPart> {
  const assembly = new StreamAssembly();
  for await (const part of parts) {
    // The finish is the stream's last part (an encoder may stop reading at it): the answer is whole here.
    if (part.type === 'finish') {
      if (part.cost !== undefined) complete(assembly.result(part), part.cost);
    } else if (part.type !== 'error') assembly.add(part);
    yield part;
  }
}

/** The content of a stream, part by part, as `streamResult` (generation/stream-result.ts) would replay it. */
class StreamAssembly {
  private readonly content: AssistantContentPart[] = [];
  private readonly toolCalls = new Map<number, ToolCallPart>();
  private readonly hostedCalls: HostedToolCall[] = [];
  private providerResponseId: string | undefined;
  private providerModel: string | undefined;

  add(part: Exclude<StreamPart, { type: 'finish' | 'error' }>): void {
    switch (part.type) {
      case 'start':
        this.providerResponseId = part.providerResponseId;
        this.providerModel = part.providerModel;
        return;
      case 'text-delta':
        this.lastText().text += part.text;
        return;
      case 'citation': {
        const text = this.lastText();
        (text.citations ??= []).push(part.citation);
        return;
      }
      case 'reasoning-delta': {
        const last = this.content.at(-1);
        if (last?.type === 'reasoning' && last.signature === undefined && last.redactedData === undefined) last.text += part.text;
        else this.content.push({ type: 'reasoning', text: part.text });
        return;
      }
      case 'reasoning-signature': {
        const last = this.content.at(-1);
        if (last?.type === 'reasoning' && last.signature === undefined && last.redactedData === undefined) last.signature = part.signature;
        else this.content.push({ type: 'reasoning', text: '', signature: part.signature } satisfies ReasoningPart);
        return;
      }
      case 'reasoning-redacted':
        this.content.push({ type: 'reasoning', text: '', redactedData: part.data });
        return;
      case 'tool-call-start': {
        const call: ToolCallPart = { type: 'tool-call', id: part.id, name: part.name, arguments: '' };
        this.toolCalls.set(part.index, call);
        this.content.push(call);
        return;
      }
      case 'tool-call-delta': {
        const call = this.toolCalls.get(part.index);
        if (call !== undefined) call.arguments += part.argumentsDelta;
        return;
      }
      case 'hosted-tool-call':
        this.hostedCalls.push(part.call);
        return;
      case 'hosted-tool-start':
        return;
    }
  }

  result(finish: Extract<StreamPart, { type: 'finish' }>): TextResult {
    return {
      ...(this.providerResponseId !== undefined && { providerResponseId: this.providerResponseId }),
      ...(this.providerModel !== undefined && { providerModel: this.providerModel }),
      content: this.content,
      finishReason: finish.finishReason,
      ...(finish.stopSequence !== undefined && { stopSequence: finish.stopSequence }),
      ...(finish.stopDetails !== undefined && { stopDetails: finish.stopDetails }),
      usage: finish.usage,
      ...(this.hostedCalls.length > 0 && { hostedCalls: this.hostedCalls }),
    };
  }

  private lastText(): TextPart {
    const last = this.content.at(-1);
    if (last?.type === 'text') return last;
    const text: TextPart = { type: 'text', text: '' };
    this.content.push(text);
    return text;
  }
}
