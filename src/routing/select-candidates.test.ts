import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../catalog/catalog.js';
import { catchGatewayError } from '../errors/__fixtures__/catch-gateway-error.js';
import { buildTestConfig, testCatalogYaml } from '../../test/helpers/test-config.js';
import { webSearchDomainFilter } from '../api/shared/text-call.js';
import { EndpointHealth } from './endpoint-health.js';
import { selectCandidates, type SelectionInput } from './select-candidates.js';

const catalog = buildCatalog(buildTestConfig());
const noCaps = { maxPrice: null, modelMaxPrices: {} };

function select(overrides: Partial<SelectionInput> & { model?: string; models?: string[] } = {}) {
  const { model = 'acme/chat-small', models = [], ...rest } = overrides;
  return selectCandidates({
    catalog,
    route: { model, fallbackModels: models, provider: rest.route?.provider },
    api: 'chat',
    parameters: [],
    stream: false,
    principal: noCaps,
    defaultProviderOf: () => undefined,
    health: new EndpointHealth({ failureThreshold: 2, coolDownMs: 1000 }),
    ...rest,
  });
}

const refusal = catchGatewayError;

describe('selectCandidates', () => {
  it('orders configured endpoints by price and leaves out unconfigured providers', () => {
    expect(select().map((candidate) => candidate.provider.id)).toEqual(['sim', 'sim-anthropic']);
  });

  it('puts the account default provider first', () => {
    expect(select({ defaultProviderOf: () => 'sim-anthropic' }).map((candidate) => candidate.provider.id)).toEqual(['sim-anthropic', 'sim']);
  });

  it('honours provider.order, only, ignore, allow_fallbacks and max_price', () => {
    const ids = (provider: SelectionInput['route']['provider']) =>
      select({ route: { model: 'acme/chat-small', fallbackModels: [], provider } }).map((candidate) => candidate.provider.id);
    expect(ids({ order: ['sim-anthropic'] })).toEqual(['sim-anthropic', 'sim']);
    expect(ids({ order: ['sim-anthropic'], allowFallbacks: false })).toEqual(['sim-anthropic']);
    expect(ids({ only: ['sim'] })).toEqual(['sim']);
    expect(ids({ ignore: ['sim'] })).toEqual(['sim-anthropic']);
    expect(ids({ maxPrice: { completion: 700_000_000n } })).toEqual(['sim']);
    expect(refusal(() => ids({ only: ['nobody'] })).code).toBe('no_available_provider');
  });

  it('follows fallback models after the first choice', () => {
    const candidates = select({ model: 'acme/chat-small', models: ['acme/chat-small'] });
    expect(candidates.every((candidate) => candidate.model.id === 'acme/chat-small')).toBe(true);
    const fromUnknown = select({ model: 'acme/unknown', models: ['acme/chat-small'] });
    expect(fromUnknown[0].model.id).toBe('acme/chat-small');
  });

  it('refuses free and paid models mixed, with 400', () => {
    const error = refusal(() => select({ model: 'acme/chat-small', models: ['acme/chat-small:free'] }));
    expect(error.code).toBe('invalid_request');
    expect(error.param).toBe('models');
  });

  it('refuses a parameter no endpoint of the model supports, naming the client field', () => {
    const error = refusal(() => select({ parameters: [{ name: 'frequency_penalty', field: 'frequency_penalty' }] }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain("'frequency_penalty'");
  });

  it('keeps only endpoints that support every requested parameter', () => {
    expect(select({ parameters: [{ name: 'top_k', field: 'top_k' }] }).map((candidate) => candidate.provider.id)).toEqual(['sim-anthropic']);
    expect(select({ parameters: [{ name: 'seed', field: 'seed' }] }).map((candidate) => candidate.provider.id)).toEqual(['sim']);
  });

  it('answers 503 for an unknown model or a model of another endpoint', () => {
    expect(refusal(() => select({ model: 'acme/nothing' })).code).toBe('no_available_provider');
    const image = refusal(() => select({ model: 'other/painter' }));
    expect(image.code).toBe('no_available_provider');
    expect(image.message).toContain('other/painter');
    expect(image.message).toContain('/chat/completions');
  });

  it('removes endpoints above the key\'s max price, saying so when none is left', () => {
    const capped = select({ principal: { maxPrice: { prompt: 150_000_000n, completion: null }, modelMaxPrices: {} } });
    expect(capped.map((candidate) => candidate.provider.id)).toEqual(['sim']);
    const error = refusal(() => select({ principal: { maxPrice: null, modelMaxPrices: { 'acme/chat-small': { prompt: 1n, completion: null } } } }));
    expect(error.code).toBe('no_available_provider');
    expect(error.message).toContain("key's max price");
  });

  it('moves endpoints with an open circuit to the end', () => {
    const health = new EndpointHealth({ failureThreshold: 2, coolDownMs: 60_000 });
    health.recordFailure(EndpointHealth.keyOf('sim', 'chat-small'));
    health.recordFailure(EndpointHealth.keyOf('sim', 'chat-small'));
    expect(select({ health }).map((candidate) => candidate.provider.id)).toEqual(['sim-anthropic', 'sim']);
  });
});

describe('selectCandidates: web search and its domain filter', () => {
  // acme/chat-small searches on both of its endpoints (openai- and anthropic-wire); acme/chat-small:free on its openai-wire one only.
  const searching = buildCatalog(
    buildTestConfig({
      yaml: testCatalogYaml
        .replace('supported_parameters: [max_tokens, temperature, top_p, stop, seed, tools, tool_choice, response_format]', 'supported_parameters: [max_tokens, temperature, top_p, stop, seed, tools, tool_choice, response_format, web_search]')
        .replace('supported_parameters: [max_tokens, temperature, top_p, top_k, stop, tools, tool_choice]', 'supported_parameters: [max_tokens, temperature, top_p, top_k, stop, tools, tool_choice, web_search]')
        .replace('supported_parameters: [max_tokens, temperature]', 'supported_parameters: [max_tokens, temperature, web_search]'),
    }),
  );
  const search = { name: 'web_search' as const, field: 'tools[type=web_search]' };

  it('keeps every endpoint with a search for the search alone, and only anthropic-wire ones for a domain filter', () => {
    expect(select({ catalog: searching, parameters: [search] }).map((candidate) => candidate.provider.id)).toEqual(['sim', 'sim-anthropic']);
    const filtered = select({ catalog: searching, parameters: [search, webSearchDomainFilter('tools[0].allowed_domains')] });
    expect(filtered.map((candidate) => candidate.provider.id)).toEqual(['sim-anthropic']);
  });

  it('refuses a domain filter on a model whose search cannot take one, naming the field, the model, why, and the models that honour it', () => {
    const error = refusal(() => select({ catalog: searching, model: 'acme/chat-small:free', parameters: [search, webSearchDomainFilter('tools[0].blocked_domains')] }));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'tools[0].blocked_domains' });
    expect(error.message).toBe(
      "Unsupported parameter: 'tools[0].blocked_domains' is not supported by model 'acme/chat-small:free': its provider’s web search cannot be restricted by domain (OpenAI’s Chat Completions web search and Gemini’s Google Search grounding take no domain filter), and searching every site instead would not be what was asked; remove it, or use a model that honours it (acme/chat-small).",
    );
  });

  it('refuses the search itself first on a model without any', () => {
    const error = refusal(() => select({ model: 'acme/chat-small', parameters: [search, webSearchDomainFilter('tools[0].allowed_domains')] }));
    expect(error.param).toBe('tools[type=web_search]');
    expect(error.message).toContain('no hosted web search');
    expect(error.message).toContain('no model of this gateway offers it');
  });
});

describe('selectCandidates: preferences are not requirements (contract §4)', () => {
  // acme/chat-small reasons on its anthropic-wire endpoint only, which is the dearer one.
  const reasoning = buildCatalog(
    buildTestConfig({
      yaml: testCatalogYaml.replace(
        'supported_parameters: [max_tokens, temperature, top_p, top_k, stop, tools, tool_choice]',
        'supported_parameters: [max_tokens, temperature, top_p, top_k, stop, tools, tool_choice, reasoning]',
      ),
    }),
  );
  const thinking = { name: 'reasoning' as const, field: 'thinking', preference: true as const };
  const offeredSearch = { name: 'web_search' as const, field: 'tools[type=web_search]', preference: true as const };

  it('refuses no endpoint for a preference, and puts the endpoints that honour it first', () => {
    expect(select({ catalog: reasoning }).map((candidate) => candidate.provider.id)).toEqual(['sim', 'sim-anthropic']);
    expect(select({ catalog: reasoning, parameters: [thinking] }).map((candidate) => candidate.provider.id)).toEqual(['sim-anthropic', 'sim']);
  });

  it('serves a model none of whose endpoints has an offered search, where the same search as a requirement is refused', () => {
    expect(select({ parameters: [offeredSearch] }).map((candidate) => candidate.provider.id)).toEqual(['sim', 'sim-anthropic']);
    expect(refusal(() => select({ parameters: [{ name: 'web_search', field: 'tools[type=web_search]' }] })).param).toBe('tools[type=web_search]');
  });

  it('still puts a provider the client or the account named before one that honours a preference', () => {
    expect(select({ catalog: reasoning, parameters: [thinking], defaultProviderOf: () => 'sim' }).map((candidate) => candidate.provider.id)).toEqual(['sim', 'sim-anthropic']);
  });
});

describe('EndpointHealth', () => {
  it('opens after consecutive failures, half-opens after the cool-down for one probe, and closes on success', () => {
    let now = 0;
    const health = new EndpointHealth({ failureThreshold: 3, coolDownMs: 1000, now: () => now });
    const key = 'p\u0000m';
    health.recordFailure(key);
    health.recordFailure(key);
    expect(health.state(key)).toBe('closed');
    health.recordFailure(key);
    expect(health.state(key)).toBe('open');
    now = 1500;
    expect(health.state(key)).toBe('half-open');
    health.begin(key);
    expect(health.state(key)).toBe('open');
    health.recordFailure(key);
    expect(health.state(key)).toBe('open');
    now = 3000;
    health.begin(key);
    health.recordSuccess(key, 100);
    expect(health.state(key)).toBe('closed');
    expect(health.latency(key)).toBe(100);
  });
});
