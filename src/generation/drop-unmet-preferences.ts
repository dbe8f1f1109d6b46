import type { DecodedTextCall } from '../core/text-call.js';
import type { Catalog } from '../catalog/catalog.js';
import type { CanonicalParameter, TextRequest, WebSearchOptions } from '../core/text-request.js';
import type { HostedToolsConfig } from '../config/types.js';
import { unsupportedParameter } from '../errors/gateway-error.js';
import type { Candidate } from '../catalog/candidate.js';
import { endpointMeets } from '../routing/select-candidates.js';
import type { ProviderApi } from '../config/types.js';
import type { TextProviderAdapter } from '../providers/provider-adapter.js';
import { textAdapters } from '../providers/protocols.js';

export interface PreferencePlan {
  /** The request as this endpoint gets it: without what it cannot honour. */
  request: TextRequest;
  /** The client's names of what was dropped, in request order (`x-switchyard-omitted`, the log's `omitted`). */
  omitted: readonly string[];
  /** Hosted tools the gateway runs itself for this endpoint (contract §4a), absent when none. */
  gatewayTools?: GatewayTools;
}

/** What the gateway runs in the model's place: the client's search settings, a web fetch. */
export interface GatewayTools {
  webSearch?: WebSearchOptions;
  webFetch?: true;
  imageGeneration?: true;
}

const noneOmitted: readonly string[] = Object.freeze([]);

/** How a preference the endpoint cannot honour is taken out of the canonical request. */
const withoutParameter: Partial<Record<CanonicalParameter, (request: TextRequest) => void>> = {
  web_search: (request) => delete request.webSearch,
  reasoning: (request) => delete request.reasoning,
  // Gemini clients send topK by default (Gemini CLI: 64); OpenAI has no top_k.
  top_k: (request) => delete request.topK,
};

/**
 * Preferences are not requirements (contract §4): what the request only offers or prefers — a
 * hosted tool with `tool_choice` auto or none, reasoning settings — and this endpoint cannot
 * honour is left out, and said. A hosted tool is served, in this order, by the endpoint's own
 * tool (the web search of its provider, which routing already preferred), by a tool the gateway
 * runs itself where the operator configured one (`hosted_tools`, contract §4a: returned as
 * `gatewayTools`, for generation/run-hosted-tool-loop.ts), or not at all. What the request forces stayed a requirement and was
 * refused by routing; a `tool_choice` that forces some tool when only hosted tools were offered
 * and none is left is refused here, as that tool was forced.
 */
export function dropUnmetPreferences(catalog: Catalog, call: DecodedTextCall, candidate: Candidate, hostedTools?: HostedToolsConfig): PreferencePlan {
  if (call.request.temperature !== undefined && call.request.topP !== undefined && adapterOf[candidate.provider.api]?.refusesTemperatureWithTopP?.(candidate.endpoint.model)) return withoutTopP(catalog, call, candidate, hostedTools);
  // The common request prefers nothing: no work, no allocation on the hot path.
  if (call.offeredTools === undefined && !call.parameters.some((parameter) => parameter.preference)) return { request: call.request, omitted: noneOmitted };
  const preferences = call.parameters.filter((parameter) => parameter.preference && withoutParameter[parameter.name] !== undefined);
  const dropped = new Set(preferences.filter((parameter) => !endpointMeets(catalog, candidate.endpoint, parameter)).map((parameter) => parameter.name));
  let request = call.request;
  if (dropped.size > 0) {
    request = { ...request };
    for (const name of dropped) withoutParameter[name]!(request);
  }
  // A search this endpoint cannot run, the gateway runs where the operator configured a backend
  // (its domain filter too: the gateway filters what the backend found).
  const gatewayTools: GatewayTools = {};
  if (dropped.has('web_search') && hostedTools?.webSearch && call.request.webSearch) {
    gatewayTools.webSearch = call.request.webSearch;
    dropped.delete('web_search');
  }
  // Every field that asked for what was dropped: a search and its domain filter, thinking and an effort.
  const omitted = [...new Set(preferences.filter((parameter) => dropped.has(parameter.name)).map((parameter) => parameter.field))];
  for (const offered of call.offeredTools ?? []) {
    if (hostedTools?.webFetch && offered.tool.startsWith('web_fetch_')) gatewayTools.webFetch = true;
    else if (hostedTools?.imageGeneration && offered.tool === 'image_generation') gatewayTools.imageGeneration = true;
    else omitted.push(offered.field);
  }
  const planned = gatewayTools.webSearch || gatewayTools.webFetch || gatewayTools.imageGeneration ? { gatewayTools } : {};
  if (omitted.length === 0) return { request, omitted, ...planned };
  return { request: planned.gatewayTools ? request : withoutEmptyToolChoice(request, omitted), omitted, ...planned };
}

/**
 * The text adapters by protocol, asked whether a model takes one of `temperature` and `top_p`, not
 * both: a model-family fact each protocol knows (`refusesTemperatureWithTopP`: Claude's recent
 * families on Anthropic's wire and on Bedrock's Converse, which passes both settings to the same
 * models).
 */
const adapterOf: Partial<Record<ProviderApi, TextProviderAdapter>> = textAdapters;

/**
 * Anthropic's recent models refuse `temperature` and `top_p` together ("cannot both be specified
 * for this model"; see `adapterOf`); clients send
 * both by default (Gemini CLI: temperature 0 and topP 1). The temperature is kept, as the AI SDK's
 * Anthropic provider does, and the sampling cutoff is left out and said.
 */
function withoutTopP(catalog: Catalog, call: DecodedTextCall, candidate: Candidate, hostedTools?: HostedToolsConfig): PreferencePlan {
  const { topP: _topP, ...request } = call.request;
  const field = call.parameters.find((parameter) => parameter.name === 'top_p')?.field ?? 'top_p';
  const plan = dropUnmetPreferences(catalog, { ...call, request }, candidate, hostedTools);
  return { ...plan, omitted: [...plan.omitted, field] };
}

/**
 * A tool choice with no tool left to choose: `auto` or `none` then mean nothing and are not sent
 * (providers refuse a tool choice without tools); `required` forced one of the hosted tools.
 */
function withoutEmptyToolChoice(request: TextRequest, omitted: string[]): TextRequest {
  if (request.toolChoice === undefined || (request.tools?.length ?? 0) > 0 || request.webSearch) return request;
  if (request.toolChoice !== 'auto' && request.toolChoice !== 'none') {
    throw unsupportedParameter(
      'tool_choice',
      `forces a tool call, but the only tools offered are hosted tools this endpoint does not run (${omitted.join(', ')}); offer them with tool_choice auto, or add a function tool`,
    );
  }
  const { toolChoice: _toolChoice, parallelToolCalls: _parallel, ...rest } = request;
  return rest;
}
