import { describe, expect, it } from 'vitest';
import { webSearchDomainFilter, type DecodedTextCall } from '../api/shared/text-call.js';
import { buildCatalog } from '../catalog/catalog.js';
import type { TextRequest } from '../core/text-request.js';
import { catchGatewayError } from '../errors/__fixtures__/catch-gateway-error.js';
import { EndpointHealth } from '../routing/endpoint-health.js';
import { selectCandidates } from '../routing/select-candidates.js';
import { buildTestConfig, testCatalogYaml } from '../../test/helpers/test-config.js';
import { dropUnmetPreferences } from './drop-unmet-preferences.js';

// acme/chat-small: its openai-wire endpoint (`sim`) searches, its anthropic-wire one does not; neither reasons.
const catalog = buildCatalog(
  buildTestConfig({
    yaml: testCatalogYaml.replace(
      'supported_parameters: [max_tokens, temperature, top_p, stop, seed, tools, tool_choice, response_format]',
      'supported_parameters: [max_tokens, temperature, top_p, stop, seed, tools, tool_choice, response_format, web_search]',
    ),
  }),
);
const [searching, plain] = selectCandidates({
  catalog,
  route: { model: 'acme/chat-small', fallbackModels: [] },
  api: 'responses',
  parameters: [],
  stream: false,
  principal: { maxPrice: null, modelMaxPrices: {} },
  defaultProviderOf: () => undefined,
  health: new EndpointHealth({ failureThreshold: 2, coolDownMs: 1000 }),
});

const search = { name: 'web_search' as const, field: 'tools[type=web_search]', preference: true as const };
const base: TextRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false };
const call = (request: Partial<TextRequest>, parameters: DecodedTextCall['parameters'], offeredTools?: DecodedTextCall['offeredTools']): DecodedTextCall => ({
  route: { model: 'acme/chat-small', fallbackModels: [] },
  request: { ...base, ...request },
  parameters,
  ...(offeredTools && { offeredTools }),
});

describe('dropUnmetPreferences', () => {
  it('leaves a request that prefers nothing as it is', () => {
    const plainCall = call({ temperature: 0.2 }, [{ name: 'temperature', field: 'temperature' }]);
    expect(dropUnmetPreferences(catalog, plainCall, plain)).toEqual({ request: plainCall.request, omitted: [] });
    expect(dropUnmetPreferences(catalog, plainCall, plain).request).toBe(plainCall.request);
  });

  it('keeps an offered search where the endpoint has one, and leaves it out, said, where not', () => {
    const offered = call({ webSearch: {}, reasoning: { effort: 'low' } }, [search, { name: 'reasoning', field: 'reasoning.effort', preference: true }]);
    expect(dropUnmetPreferences(catalog, offered, searching)).toMatchObject({ request: { webSearch: {} }, omitted: ['reasoning.effort'] });
    const served = dropUnmetPreferences(catalog, offered, plain);
    expect(served.omitted).toEqual(['tools[type=web_search]', 'reasoning.effort']);
    expect(served.request).not.toHaveProperty('webSearch');
    expect(served.request).not.toHaveProperty('reasoning');
    // The decoded call is not changed: the next endpoint tried starts from it again.
    expect(offered.request.webSearch).toEqual({});
  });

  it('leaves out a search with a domain filter where the search cannot take one, naming both fields', () => {
    const filtered = call({ webSearch: { allowedDomains: ['example.com'] } }, [search, { ...webSearchDomainFilter('tools[0].filters.allowed_domains'), preference: true }]);
    const served = dropUnmetPreferences(catalog, filtered, searching);
    expect(served.omitted).toEqual(['tools[type=web_search]', 'tools[0].filters.allowed_domains']);
    expect(served.request).not.toHaveProperty('webSearch');
  });

  it('always leaves out the hosted tools no provider runs, after the preferences', () => {
    const tools = [{ name: 'f', parameters: { type: 'object' } }];
    const offered = call({ tools, toolChoice: 'auto' }, [], [{ tool: 'image_generation', field: 'tools[type=image_generation]' }]);
    expect(dropUnmetPreferences(catalog, offered, searching)).toEqual({ request: offered.request, omitted: ['tools[type=image_generation]'] });
  });

  it('drops a tool choice of auto with no tool left to choose, and refuses one that forces a call among hosted tools only', () => {
    const auto = dropUnmetPreferences(catalog, call({ webSearch: {}, toolChoice: 'auto', parallelToolCalls: false }, [search]), plain);
    expect(auto.request).not.toHaveProperty('toolChoice');
    expect(auto.request).not.toHaveProperty('parallelToolCalls');
    const error = catchGatewayError(() => dropUnmetPreferences(catalog, call({ webSearch: {}, toolChoice: 'required' }, [search]), plain));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'tool_choice' });
    expect(error.message).toContain('tools[type=web_search]');
  });

  describe('with gateway-run hosted tools configured (contract §4a)', () => {
    const hostedTools = {
      webSearch: { backend: 'searxng' as const, baseUrl: 'http://127.0.0.1:8888', apiKey: '', pricePerSearch: 0n, maxResults: 5, maxUses: 3, timeoutMs: 1000 },
      webFetch: { maxBytes: 1000 },
      imageGeneration: { model: 'other/painter' },
    };

    it('the endpoint’s own search first; where it has none the gateway runs it, domain filter included, and nothing is omitted', () => {
      const plainSearch = call({ webSearch: {} }, [search]);
      expect(dropUnmetPreferences(catalog, plainSearch, searching, hostedTools)).toMatchObject({ omitted: [], request: { webSearch: {} } });
      expect(dropUnmetPreferences(catalog, plainSearch, searching, hostedTools).gatewayTools).toBeUndefined();
      expect(dropUnmetPreferences(catalog, plainSearch, plain, hostedTools)).toMatchObject({ omitted: [], gatewayTools: { webSearch: {} } });
      // A domain filter the endpoint's own search cannot take (openai-wire): the gateway's search filters instead.
      const filtered = call({ webSearch: { allowedDomains: ['example.com'] } }, [search, { ...webSearchDomainFilter('tools[0].filters.allowed_domains'), preference: true }]);
      expect(dropUnmetPreferences(catalog, filtered, searching, hostedTools).gatewayTools).toEqual({ webSearch: { allowedDomains: ['example.com'] } });
      const served = dropUnmetPreferences(catalog, filtered, plain, hostedTools);
      expect(served.omitted).toEqual([]);
      expect(served.gatewayTools).toEqual({ webSearch: { allowedDomains: ['example.com'] } });
      expect(served.request).not.toHaveProperty('webSearch');
    });

    it('web fetch and image generation offered are run by the gateway where configured, other hosted tools still left out', () => {
      const offered = call({}, [], [
        { tool: 'web_fetch_20250910', field: 'tools[type=web_fetch_20250910]' },
        { tool: 'image_generation', field: 'tools[type=image_generation]' },
        { tool: 'code_interpreter', field: 'tools[type=code_interpreter]' },
      ]);
      const served = dropUnmetPreferences(catalog, offered, plain, hostedTools);
      expect(served.gatewayTools).toEqual({ webFetch: true, imageGeneration: true });
      expect(served.omitted).toEqual(['tools[type=code_interpreter]']);
      expect(dropUnmetPreferences(catalog, offered, plain, {}).omitted).toHaveLength(3);
    });
  });
});
