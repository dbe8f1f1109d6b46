import type { ResponseMeta } from '../shared/text-call.js';
import type { ResponsesEcho } from './responses-echo.js';
import type { IncompleteDetails, OutputItem, ResponseErrorWire, ResponseObject, ResponseStatus, ResponseUsageWire } from './responses-wire.js';

export interface ResponseState {
  status: ResponseStatus;
  output: OutputItem[];
  usage: ResponseUsageWire | null;
  error?: ResponseErrorWire | null;
  incompleteDetails?: IncompleteDetails | null;
  /** Unix seconds; OpenAI sets `completed_at` only on completed responses. */
  completedAt?: number | null;
}

/**
 * The Response object, in OpenAI's field order, with every field the `openai` SDK's `Response`
 * and the Open Responses `ResponseResource` define; request fields carry their effective values.
 */
export function buildResponseObject(meta: ResponseMeta, echo: ResponsesEcho, state: ResponseState): ResponseObject {
  const response: ResponseObject = {
    id: meta.id,
    object: 'response',
    created_at: meta.created,
    status: state.status,
    background: false,
    completed_at: state.status === 'completed' ? (state.completedAt ?? null) : null,
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: meta.model,
    output: state.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: echo.previous_response_id,
    reasoning: echo.reasoning,
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    presence_penalty: echo.presence_penalty,
    frequency_penalty: echo.frequency_penalty,
    top_logprobs: echo.top_logprobs,
    max_tool_calls: echo.max_tool_calls,
    truncation: echo.truncation,
    usage: state.usage,
    service_tier: echo.service_tier,
    safety_identifier: echo.safety_identifier,
    prompt_cache_key: echo.prompt_cache_key,
    metadata: echo.metadata,
  };
  if (echo.user !== undefined) response.user = echo.user;
  return response;
}
