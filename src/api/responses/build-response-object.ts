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
 * The Response object, in OpenAI's field order. Fields tied to state the gateway does not keep
 * (`store`, `background`, `previous_response_id`) carry the only values it accepts.
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
    previous_response_id: null,
    reasoning: echo.reasoning,
    store: false,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: echo.truncation,
    usage: state.usage,
    metadata: echo.metadata,
  };
  if (echo.user !== undefined) response.user = echo.user;
  return response;
}
