import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeMessagesRequest } from '../../src/api/messages/decode-request.js';
import { messagesFieldTable } from '../../src/api/messages/field-table.js';
import { renderFieldTable, topLevelFields, wireProtocols } from '../../src/api/shared/field-table.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { dottedPrefixes, interfaceFields, markedSection, nestedCoverage, nestedLiterals, nestedVariants, type NestedPath } from '../helpers/sdk-request-fields.js';

const base = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };

const sdkRequests = [
  ['@anthropic-ai/sdk/resources/messages/messages.d.ts', 'MessageCreateParamsBase'],
  ['@anthropic-ai/sdk/resources/beta/messages/messages.d.ts', 'MessageCreateParamsBase'],
] as const;

const block = 'the block itself, translated as the `messages` row says';
/**
 * The nested paths the table keeps dotted rows for. At each, every property of the SDK's types
 * (stable and beta) needs a row, unless it is listed here with why; variants outside `accepted`
 * must be refused as a whole by the decoder (checked below).
 */
const nestedPaths: Record<string, NestedPath> = {
  // Custom tools, the web search server tool, and the server tools offered that the request is
  // served without (web fetch, code execution); the client-run tools are refused by their type (the `tools` row).
  'tools[]': {
    accepted: [
      'custom', 'web_search_20250305', 'web_search_20260209', 'web_search_20260318',
      'web_fetch_20250910', 'web_fetch_20260209', 'web_fetch_20260309', 'web_fetch_20260318',
      'code_execution_20250522', 'code_execution_20250825', 'code_execution_20260120', 'code_execution_20260521',
    ],
    covered: {
      type: 'the discriminator: the `tools` row says which tools are accepted',
      name: 'the tool’s definition, translated as the `tools` row says',
      description: 'the tool’s definition, translated as the `tools` row says',
      input_schema: 'the tool’s definition, translated as the `tools` row says',
      // Web fetch settings: the tool itself is left out, as its `tools[].type=web_fetch_*` row says.
      ...Object.fromEntries(['citations', 'max_content_tokens', 'url_sources', 'use_cache'].map((key) => [key, 'a setting of a server tool the request is served without'])),
    },
  },
  tool_choice: { accepted: ['auto', 'any', 'tool', 'none'], covered: { type: 'the choice itself, translated as the `tool_choice` row says' } },
  thinking: {
    accepted: ['enabled', 'adaptive', 'disabled', 'between_tools'],
    covered: { type: 'the discriminator: enabled, adaptive or disabled as the `thinking` row says, between_tools as its own row says' },
  },
  output_config: {},
  // A user turn takes text, image and tool_result blocks, an assistant turn text, thinking and tool_use.
  'messages[].content[]': {
    accepted: ['text', 'image', 'tool_result', 'tool_use', 'thinking', 'redacted_thinking'],
    covered: Object.fromEntries(['type', 'text', 'source', 'id', 'name', 'input', 'tool_use_id', 'content', 'is_error', 'thinking', 'signature', 'data'].map((key) => [key, block])),
  },
  'system[]': { accepted: ['text'], covered: { type: 'text blocks only (the `system` row)', text: 'the system prompt, translated as the `system` row says' } },
};

function refusedParam(body: Record<string, unknown>): string | undefined {
  try {
    decodeMessagesRequest(body);
    return undefined;
  } catch (error) {
    if (error instanceof GatewayError) return error.param ?? undefined;
    throw error;
  }
}

describe('the Messages field table', () => {
  it.each([
    ['@anthropic-ai/sdk/resources/messages/messages.d.ts', 'MessageCreateParamsBase'],
    ['@anthropic-ai/sdk/resources/beta/messages/messages.d.ts', 'MessageCreateParamsBase'],
  ])('has a row for every field of %s %s', (file, name) => {
    const fields = interfaceFields(file, name);
    expect(fields.length).toBeGreaterThan(15);
    const rows = topLevelFields(messagesFieldTable);
    expect(fields.filter((field) => !rows.has(field))).toEqual([]);
  });

  it('keeps a description of every nested path it has dotted rows for', () => {
    expect(dottedPrefixes(messagesFieldTable.map((row) => row.field))).toEqual(Object.keys(nestedPaths).sort());
  });

  describe.each(sdkRequests)('has a row for every nested field of %s %s', (file, name) => {
    const rows = new Set(messagesFieldTable.map((row) => row.field));
    it.each(Object.entries(nestedPaths))('%s', (path, spec) => {
      const report = nestedCoverage(rows, path, spec, nestedVariants(file, name, path), refusedParam, base);
      expect(report).toEqual({ missing: [], stale: [], notRefused: [] });
    });
  });

  it.each(sdkRequests)('accepts every thinking.display value of %s %s, with every thinking type that takes one', (file, name) => {
    const sdk = nestedLiterals(file, name, 'thinking.display');
    expect(sdk.flatMap(({ values }) => values).length).toBeGreaterThan(0);
    const notAccepted: string[] = [];
    for (const { variant, values } of sdk) {
      for (const type of variant) {
        for (const display of values) {
          const thinking = { type, display, ...(type === 'enabled' && { budget_tokens: 1024 }) };
          try {
            // Carried as sent: the adapters read it from the canonical reasoning.
            if (decodeMessagesRequest({ ...base, max_tokens: 4096, thinking }).request.reasoning?.display !== display) notAccepted.push(`${type}: ${display} (dropped)`);
          } catch {
            notAccepted.push(`${type}: ${display}`);
          }
        }
      }
    }
    expect(notAccepted).toEqual([]);
  });

  it('reads the beta display values from the SDK (the check above is not empty)', () => {
    const beta = nestedLiterals('@anthropic-ai/sdk/resources/beta/messages/messages.d.ts', 'MessageCreateParamsBase', 'thinking.display');
    expect(beta.flatMap(({ variant }) => variant)).toEqual(expect.arrayContaining(['adaptive', 'enabled']));
    expect(beta.flatMap(({ values }) => values)).toEqual(expect.arrayContaining(['summarized', 'omitted', 'updates']));
  });

  it('refuses by name the nested fields its rows say are refused', () => {
    const tool = { name: 'f', input_schema: { type: 'object' } };
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ tools: [{ ...tool, allowed_callers: ['direct'] }] }, 'tools[0].allowed_callers'],
      [{ tools: [{ ...tool, input_examples: [{ input: {} }] }] }, 'tools[0].input_examples'],
      [{ tools: [{ type: 'web_search_20260318', name: 'web_search', response_inclusion: 'full' }] }, 'tools[0].response_inclusion'],
      [{ tools: [{ type: 'web_search_20250305', name: 'web_search', strict: true }] }, 'tools[0].strict'],
      [{ messages: [{ role: 'user', content: [{ type: 'text', text: 'x', citations: [{ type: 'char_location' }] }] }] }, 'messages[0].content[0].citations'],
      [{ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://a.com/i.png' }, transformations: {} }] }] }, 'messages[0].content[0].transformations'],
      [{ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x', toolset_name: 'browser' }] }] }, 'messages[0].content[0].toolset_name'],
      [{ system: [{ type: 'text', text: 'x', citations: [{ type: 'char_location' }] }] }, 'system[0].citations'],
    ];
    for (const [extra, param] of refused) expect(refusedParam({ ...base, ...extra }), param).toBe(param);
  });

  it('states a handling on every provider protocol for each row, once per field', () => {
    const names = messagesFieldTable.map((row) => row.field);
    expect(new Set(names).size).toBe(names.length);
    for (const row of messagesFieldTable) {
      for (const protocol of wireProtocols) expect(['native', 'translated', 'emulated', 'hint', 'refused']).toContain(row.handling[protocol].kind);
    }
  });

  it('is what the decoder accepts: a field without a row is refused by name', () => {
    let refused: unknown;
    try {
      decodeMessagesRequest({ ...base, max_tokenz: 5 });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).message).toBe("Unsupported parameter: 'max_tokenz' is not supported.");
    for (const field of topLevelFields(messagesFieldTable)) {
      try {
        decodeMessagesRequest({ ...base, [field]: null });
      } catch (error) {
        expect((error as GatewayError).message).not.toBe(`Unsupported parameter: '${field}' is not supported.`);
      }
    }
  });

  it('is rendered in docs/api-fields.md between its markers', () => {
    const page = readFileSync(new URL('../../docs/api-fields.md', import.meta.url), 'utf8');
    expect(markedSection(page, 'messages')).toBe(renderFieldTable(messagesFieldTable));
  });
});
