import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../catalog/catalog.js';
import type { Message } from '../core/content.js';
import type { TextRequest } from '../core/text-request.js';
import { EndpointHealth } from '../routing/endpoint-health.js';
import { selectCandidates } from '../routing/select-candidates.js';
import { buildTestConfig, testCatalogYaml } from '../../test/helpers/test-config.js';
import { truncateToContext } from './truncate-to-context.js';

// acme/chat-small with a 1,000-token context window.
const catalog = buildCatalog(buildTestConfig({ yaml: testCatalogYaml.replace(/(- id: acme\/chat-small\n(?:.*\n)*?\s+)context_length: \d+/, '$1context_length: 1000') }));
const candidates = selectCandidates({
  catalog,
  route: { model: 'acme/chat-small', fallbackModels: [] },
  api: 'responses',
  parameters: [],
  stream: false,
  principal: { maxPrice: null, modelMaxPrices: {} },
  defaultProviderOf: () => undefined,
  health: new EndpointHealth({ failureThreshold: 2, coolDownMs: 1000 }),
});

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const long = 'y'.repeat(1500); // ~500 estimated tokens

describe('truncateToContext (Responses truncation: "auto")', () => {
  const messages: Message[] = [
    { role: 'system', content: 'instructions' },
    user(`first ${long}`),
    { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'read', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'c1', content: [{ type: 'text', text: `result ${long}` }] },
    user('second'),
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    user('last'),
  ];

  it('drops whole turns, oldest first, after the instructions, keeping no tool result without its call', () => {
    const request: TextRequest = { messages, stream: false, truncation: 'auto' };
    expect(truncateToContext(request, candidates).messages).toEqual([messages[0], ...messages.slice(4)]);
  });

  it('sends the input as it is when it fits, or when truncation is not auto', () => {
    const short: TextRequest = { messages: [messages[0], user('hi')], stream: false, truncation: 'auto' };
    expect(truncateToContext(short, candidates)).toBe(short);
    const disabled: TextRequest = { messages, stream: false };
    expect(truncateToContext(disabled, candidates)).toBe(disabled);
  });

  it('keeps the last turn even when it alone does not fit (the provider then says so)', () => {
    const request: TextRequest = { messages: [user(`a ${long}`), user(`b ${long}${long}`)], stream: false, truncation: 'auto' };
    expect(truncateToContext(request, candidates).messages).toEqual([request.messages[1]]);
  });
});
