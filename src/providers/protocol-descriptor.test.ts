import { describe, expect, it } from 'vitest';
import { chatCompletionsFieldTable } from '../api/chat-completions/field-table.js';
import { messagesFieldTable } from '../api/messages/field-table.js';
import { responsesFieldTable } from '../api/responses/field-table.js';
import { wireProtocols } from '../api/shared/field-table.js';
import { parseConfigText } from '../config/load-config.js';
import type { TextRequest } from '../core/text-request.js';
import { tagSignature } from '../core/signature-tag.js';
import { untagRequestSignatures } from '../generation/tag-signatures.js';
import { imageAdapterOf, speechAdapterOf } from './media-adapters.js';
import { canonicalParameters } from '../config/normalize-config.js';
import { defaultTextParameters, protocolDescriptors, providerApis, textProviderApis, type ProviderApi, type TextProviderApi } from '../core/protocol-descriptor.js';
import { ProviderRegistry } from './registry.js';
import { videoAdapterFor } from './video-adapters.js';

const providerYaml = (api: string) => `providers:\n  - {id: p, name: P, api: ${api}, base_url: "http://127.0.0.1:1"}\nmodels: []\n`;

function signedRequest(signature: string): TextRequest {
  return {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'think' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm', signature }] },
    ],
    stream: false,
  } as TextRequest;
}

// Every place that lists the protocols reads the descriptor: each protocol in it works in each.
describe.each(providerApis)('the %s protocol, from the descriptor', (api) => {
  const descriptor = protocolDescriptors[api];

  it('is a valid `api` in the config file', () => {
    expect(() => parseConfigText(providerYaml(api), 'test.yaml', {})).not.toThrow();
  });

  it('gets its reasoning signatures back, and no other protocol does', () => {
    const tagged = tagSignature(api, 'sig-1');
    const own = untagRequestSignatures(signedRequest(tagged), api).messages[1].content[0];
    expect(own).toMatchObject({ type: 'reasoning', signature: 'sig-1' });
    for (const other of providerApis.filter((one) => one !== api)) {
      expect(untagRequestSignatures(signedRequest(tagged), other).messages[1].content[0]).not.toHaveProperty('signature');
    }
  });

  it('has an adapter for exactly what it serves', () => {
    const registry = new ProviderRegistry();
    if (descriptor.text) expect(registry.textAdapter(api).api).toBe(api);
    else expect(() => registry.textAdapter(api)).toThrow(/cannot serve text/);
    expect(speechAdapterOf(api) !== undefined).toBe(descriptor.speech);
    expect(imageAdapterOf(api) !== undefined).toBe(descriptor.images);
    expect(videoAdapterFor(api) !== undefined).toBe(descriptor.video);
  });

  it('has a column in every style field table when it serves text', () => {
    expect(wireProtocols.includes(api as TextProviderApi)).toBe(descriptor.text);
    for (const table of [chatCompletionsFieldTable, responsesFieldTable, messagesFieldTable]) {
      for (const row of table) expect(Object.hasOwn(row.handling, api)).toBe(descriptor.text);
    }
  });
});

describe('the protocol descriptor', () => {
  it('is the only list: an unknown api is refused, naming the descriptor’s protocols', () => {
    expect(() => parseConfigText(providerYaml('watsonx'), 'test.yaml', {})).toThrow(`one of ${providerApis.join(', ')}`);
    expect(textProviderApis).toEqual(providerApis.filter((api) => protocolDescriptors[api].text));
  });

  it('makes a record keyed by protocol incomplete at compile time when one is missing', () => {
    // @ts-expect-error: gemini has no entry; a protocol added to the descriptor fails the same way.
    const incomplete: Record<TextProviderApi, true> = { openai: true, anthropic: true };
    // @ts-expect-error: not a protocol of the descriptor.
    const unknown: ProviderApi = 'watsonx';
    expect([incomplete, unknown]).toHaveLength(2);
  });
});

describe('default supported parameters', () => {
  it('every text protocol has its defaults, each a canonical parameter name, never a model capability', () => {
    expect(Object.keys(defaultTextParameters).sort()).toEqual([...textProviderApis].sort());
    for (const parameters of Object.values(defaultTextParameters)) {
      expect(parameters.filter((name) => !canonicalParameters.has(name))).toEqual([]);
      expect(parameters).toEqual(expect.arrayContaining(['max_tokens', 'temperature', 'top_p', 'stop']));
      for (const capability of ['tools', 'tool_choice', 'response_format', 'reasoning', 'web_search']) expect(parameters).not.toContain(capability);
    }
  });
});
