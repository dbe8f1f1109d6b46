import type { AssistantContentPart } from './content.js';
import type { FinishReason, StopDetails } from './finish-reason.js';
import type { Usage } from './usage.js';
import type { HostedToolCall } from './hosted-tool-call.js';

/** A complete (non-streaming) generation result, as decoded from any provider. */
export interface TextResult {
  /** The provider's id for the response, when it sends one. */
  providerResponseId?: string;
  /** The model name the provider reports. */
  providerModel?: string;
  content: AssistantContentPart[];
  finishReason: FinishReason;
  /** The stop sequence that ended generation, when the provider says which one. */
  stopSequence?: string;
  /** The provider's own account of the stop (a refusal's category and explanation). */
  stopDetails?: StopDetails;
  usage: Usage;
  /** Hosted tools the gateway ran on the way to this answer, in the order it ran them (contract §4a). */
  hostedCalls?: HostedToolCall[];
}
