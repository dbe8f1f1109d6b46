import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { priceTextUsage } from '../billing/pricing.js';
import type { EndpointPricing, HostedToolsConfig } from '../config/types.js';
import type { AssistantContentPart, Citation, Message, ToolCallPart } from '../core/content.js';
import type { HostedToolCall } from '../core/hosted-tool-call.js';
import type { TextRequest, ToolDefinition } from '../core/text-request.js';
import type { TextResult } from '../core/text-result.js';
import type { Usage } from '../core/usage.js';
import type { StreamPart } from '../core/stream-part.js';
import { fetchWebPage } from '../hosted-tools/fetch-web-page.js';
import { searchWeb } from '../hosted-tools/search-web.js';
import type { CallContext, TextProviderAdapter } from '../providers/provider-adapter.js';
import type { GatewayTools } from './drop-unmet-preferences.js';
import type { CancelSignal } from '../core/cancel-signal.js';

export interface HostedLoopInput {
  adapter: TextProviderAdapter;
  callContext: CallContext;
  /** The request for this endpoint, without the hosted tools it cannot run. */
  request: TextRequest;
  gatewayTools: GatewayTools;
  hostedTools: HostedToolsConfig;
  pricing: EndpointPricing;
  pricingOf: (providerModel: string) => EndpointPricing | undefined;
  inputImages: number;
  signal: CancelSignal;
  logger: Logger;
  /** Makes one image with the configured image model through the images path, which charges it at its price. */
  generateImage?: (prompt: string) => Promise<{ base64: string; mediaType: string }>;
  /** Told as each tool call starts and as it ends (a streamed request shows them as they happen). */
  onProgress?: (part: Extract<StreamPart, { type: 'hosted-tool-start' | 'hosted-tool-call' }>) => void;
}

/** The most model turns one request may take: one per allowed search, one to answer, one spare for a fetch. */
export function hostedLoopTurns(hostedTools: HostedToolsConfig, gatewayTools: GatewayTools): number {
  return (gatewayTools.webSearch ? (hostedTools.webSearch?.maxUses ?? 0) : 0) + (gatewayTools.webFetch ? 2 : 0) + (gatewayTools.imageGeneration ? 1 : 0) + 1;
}

/** The most the gateway's own tools can add to a request's cost: every allowed search. */
export function hostedToolsCeiling(hostedTools: HostedToolsConfig, gatewayTools: GatewayTools): bigint {
  const search = hostedTools.webSearch;
  return gatewayTools.webSearch && search ? BigInt(search.maxUses) * search.pricePerSearch : 0n;
}

const fetchTimeoutMs = 15_000;

/**
 * The gateway runs a hosted tool for a model whose endpoint has none (contract §4a): it offers
 * the model a function tool of the same purpose, runs each call itself, feeds the result back and
 * asks again, until the model answers without calling one — or the turns run out, when the last
 * turn is asked without the tools so that it must answer. Bounded by `max_uses` searches, by
 * `hostedLoopTurns` turns and by each search's timeout. A search that fails is told to the model
 * (the answer goes on), logged for the operator, and not charged. Every turn's tokens are priced
 * at the endpoint's prices, each search at `price_per_search`.
 */
export async function runHostedToolLoop(input: HostedLoopInput): Promise<{ result: TextResult; cost: bigint }> {
  const { request, gatewayTools, hostedTools } = input;
  const functions = gatewayFunctions(request.tools ?? [], gatewayTools);
  const byName = new Map(functions.map((entry) => [entry.definition.name, entry.tool]));
  const maxTurns = hostedLoopTurns(hostedTools, gatewayTools);
  const messages: Message[] = [...request.messages];
  const calls: HostedToolCall[] = [];
  const cited = new Map<string, Citation>();
  let usage: Usage = { promptTokens: 0, completionTokens: 0 };
  let tokenCost = 0n;
  let searches = 0;
  let attempts = 0;
  for (let turn = 1; ; turn += 1) {
    const last = turn >= maxTurns;
    const tools = last ? (request.tools ?? []) : [...(request.tools ?? []), ...functions.map((entry) => entry.definition)];
    const { toolChoice: _choice, tools: _tools, ...rest } = request;
    const turnRequest: TextRequest = {
      ...rest,
      messages,
      stream: false,
      ...(tools.length > 0 && { tools }),
      ...(tools.length > 0 && request.toolChoice !== undefined && { toolChoice: request.toolChoice === 'none' ? 'auto' : request.toolChoice }),
    };
    const result = await input.adapter.generate(turnRequest, input.callContext);
    usage = addUsage(usage, result.usage);
    tokenCost += priceTextUsage(input.pricing, result.usage, turn === 1 ? input.inputImages : 0, input.pricingOf);
    const gatewayCalls = result.content.filter((part): part is ToolCallPart => part.type === 'tool-call' && byName.has(part.name));
    const clientCalls = result.content.some((part) => part.type === 'tool-call' && !byName.has(part.name));
    if (gatewayCalls.length === 0 || clientCalls || last) {
      const searchCost = BigInt(searches) * (hostedTools.webSearch?.pricePerSearch ?? 0n);
      const content = withCitations(
        result.content.filter((part) => !(part.type === 'tool-call' && byName.has(part.name))),
        [...cited.values()],
      );
      const finalUsage: Usage = { ...usage, ...(gatewayTools.webSearch && { webSearchRequests: searches, toolCost: searchCost }) };
      return { result: { ...result, content, usage: finalUsage, hostedCalls: calls }, cost: tokenCost + searchCost };
    }
    messages.push({ role: 'assistant', content: result.content });
    for (const call of gatewayCalls) {
      const tool = byName.get(call.name)!;
      const id = `srvtoolu_${randomBytes(12).toString('hex')}`;
      input.onProgress?.({ type: 'hosted-tool-start', call: startedCall(tool, id, call.arguments) });
      const outcome =
        tool === 'web_search'
          ? await runSearch(input, call, id, gatewayTools, (attempts += 1) > (hostedTools.webSearch?.maxUses ?? 0))
          : tool === 'web_fetch'
            ? await runFetch(input, call, id)
            : await runImageGeneration(input, call, id);
      input.onProgress?.({ type: 'hosted-tool-call', call: outcome.call });
      if (outcome.call.tool === 'web_search' && outcome.call.error === undefined) {
        searches += 1;
        for (const hit of outcome.call.results) if (!cited.has(hit.url)) cited.set(hit.url, { url: hit.url, title: hit.title });
      }
      calls.push(outcome.call);
      messages.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text: outcome.text }], ...(outcome.call.error !== undefined && { isError: true }) });
    }
  }
}

type GatewayTool = 'web_search' | 'web_fetch' | 'image_generation';

/** A call as it starts: what the model asked for, without a result yet. */
function startedCall(tool: GatewayTool, id: string, json: string): HostedToolCall {
  if (tool === 'web_search') return { tool, id, query: stringArgument(json, 'query'), results: [] };
  if (tool === 'web_fetch') return { tool, id, url: stringArgument(json, 'url') };
  return { tool, id, prompt: stringArgument(json, 'prompt') };
}

/** The function tools offered in place of the hosted ones, renamed when a client function already has the name. */
function gatewayFunctions(clientTools: ToolDefinition[], gatewayTools: GatewayTools): { tool: GatewayTool; definition: ToolDefinition }[] {
  const taken = new Set(clientTools.map((tool) => tool.name));
  const nameFor = (name: string) => (taken.has(name) ? `gateway_${name}` : name);
  const functions: { tool: GatewayTool; definition: ToolDefinition }[] = [];
  if (gatewayTools.webSearch) {
    functions.push({
      tool: 'web_search',
      definition: {
        name: nameFor('web_search'),
        description: 'Search the web for current information. Returns results with URL, title and an excerpt; cite the URLs you rely on.',
        parameters: { type: 'object', properties: { query: { type: 'string', description: 'The search query' } }, required: ['query'], additionalProperties: false },
      },
    });
  }
  if (gatewayTools.webFetch) {
    functions.push({
      tool: 'web_fetch',
      definition: {
        name: nameFor('web_fetch'),
        description: 'Fetch the text of a public web page (https only).',
        parameters: { type: 'object', properties: { url: { type: 'string', description: 'The https URL of the page' } }, required: ['url'], additionalProperties: false },
      },
    });
  }
  if (gatewayTools.imageGeneration) {
    functions.push({
      tool: 'image_generation',
      definition: {
        name: nameFor('image_generation'),
        description: 'Generate an image from a text description; the image is shown to the user.',
        parameters: { type: 'object', properties: { prompt: { type: 'string', description: 'What the image shows' } }, required: ['prompt'], additionalProperties: false },
      },
    });
  }
  return functions;
}

async function runImageGeneration(input: HostedLoopInput, call: ToolCallPart, id: string): Promise<{ call: HostedToolCall; text: string }> {
  const prompt = stringArgument(call.arguments, 'prompt');
  if (prompt === '' || input.generateImage === undefined) {
    return { call: { tool: 'image_generation', id, prompt, error: 'invalid_tool_input' }, text: 'The image generation needs a non-empty "prompt".' };
  }
  try {
    const image = await input.generateImage(prompt);
    return { call: { tool: 'image_generation', id, prompt, image }, text: 'The image was generated and is shown to the user.' };
  } catch (error) {
    input.logger.warn({ reason: (error as Error).message }, 'hosted image generation failed; the model answers without it');
    return { call: { tool: 'image_generation', id, prompt, error: 'unavailable' }, text: `The image could not be generated (${(error as Error).message}).` };
  }
}

async function runSearch(
  input: HostedLoopInput,
  call: ToolCallPart,
  id: string,
  gatewayTools: GatewayTools,
  overLimit: boolean,
): Promise<{ call: HostedToolCall; text: string }> {
  const settings = input.hostedTools.webSearch!;
  const query = stringArgument(call.arguments, 'query');
  if (overLimit) {
    return { call: { tool: 'web_search', id, query, results: [], error: 'max_uses_exceeded' }, text: `No more searches are allowed for this answer (at most ${settings.maxUses}); answer with what you found.` };
  }
  if (query === '') return { call: { tool: 'web_search', id, query, results: [], error: 'invalid_tool_input' }, text: 'The search needs a non-empty "query".' };
  try {
    const hits = withinDomains(await searchWeb(settings, query, input.signal), gatewayTools.webSearch ?? {});
    const results = hits.map((hit) => ({ url: hit.url, title: hit.title, ...(hit.pageAge !== undefined && { pageAge: hit.pageAge }) }));
    const text =
      hits.length === 0
        ? `No results for "${query}".`
        : hits.map((hit, index) => `[${index + 1}] ${hit.title}\nURL: ${hit.url}${hit.pageAge ? `\nPublished: ${hit.pageAge}` : ''}\n${hit.snippet}`).join('\n\n');
    return { call: { tool: 'web_search', id, query, results }, text };
  } catch (error) {
    // The operator's backend failed: the model is told and answers without it; nothing is charged for it.
    input.logger.warn({ backend: settings.backend, reason: (error as Error).message }, 'hosted web search failed; the model answers without it');
    return { call: { tool: 'web_search', id, query, results: [], error: 'unavailable' }, text: `The web search failed (${(error as Error).message}). Answer without it, and say that searching was not possible.` };
  }
}

async function runFetch(input: HostedLoopInput, call: ToolCallPart, id: string): Promise<{ call: HostedToolCall; text: string }> {
  const url = stringArgument(call.arguments, 'url');
  try {
    const page = await fetchWebPage(url, { maxBytes: input.hostedTools.webFetch!.maxBytes, timeoutMs: fetchTimeoutMs, signal: input.signal });
    return { call: { tool: 'web_fetch', id, url: page.url, page: { text: page.text, contentType: page.contentType, ...(page.title && { title: page.title }) } }, text: page.text };
  } catch (error) {
    input.logger.warn({ reason: (error as Error).message }, 'hosted web fetch failed; the model answers without it');
    return { call: { tool: 'web_fetch', id, url, error: 'url_not_accessible' }, text: `The page could not be fetched (${(error as Error).message}).` };
  }
}

function stringArgument(json: string, key: string): string {
  try {
    const value = (JSON.parse(json) as Record<string, unknown>)[key];
    return typeof value === 'string' ? value.trim() : '';
  } catch {
    return '';
  }
}

/** The client's domain filter, applied to what the backend found (no backend API takes it the same way). */
function withinDomains<T extends { url: string }>(hits: T[], options: { allowedDomains?: string[]; blockedDomains?: string[] }): T[] {
  const matches = (url: string, domains: string[]) => {
    const host = new URL(url).hostname.toLowerCase();
    return domains.some((domain) => host === domain.toLowerCase() || host.endsWith(`.${domain.toLowerCase()}`));
  };
  return hits.filter(
    (hit) => (!options.allowedDomains || matches(hit.url, options.allowedDomains)) && (!options.blockedDomains || !matches(hit.url, options.blockedDomains)),
  );
}

/** The sources the searches found, cited for the answer's last text (each style renders them its way). */
function withCitations(content: AssistantContentPart[], citations: Citation[]): AssistantContentPart[] {
  if (citations.length === 0) return content;
  const lastText = content.findLastIndex((part) => part.type === 'text');
  if (lastText === -1) return content;
  return content.map((part, index) => (index === lastText && part.type === 'text' ? { ...part, citations: [...(part.citations ?? []), ...citations] } : part));
}

function addUsage(total: Usage, turn: Usage): Usage {
  const sum = (a: number | undefined, b: number | undefined) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  const added: Usage = { promptTokens: total.promptTokens + turn.promptTokens, completionTokens: total.completionTokens + turn.completionTokens };
  const cached = sum(total.cachedPromptTokens, turn.cachedPromptTokens);
  const written = sum(total.cacheWritePromptTokens, turn.cacheWritePromptTokens);
  const reasoning = sum(total.reasoningTokens, turn.reasoningTokens);
  if (cached !== undefined) added.cachedPromptTokens = cached;
  if (written !== undefined) added.cacheWritePromptTokens = written;
  if (reasoning !== undefined) added.reasoningTokens = reasoning;
  if (total.estimated || turn.estimated) added.estimated = true;
  return added;
}
