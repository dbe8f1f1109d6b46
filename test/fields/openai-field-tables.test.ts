import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chatCompletionsFieldTable } from '../../src/api/chat-completions/field-table.js';
import { decodeChatCompletionsRequest } from '../../src/api/chat-completions/decode-request.js';
import { responsesFieldTable } from '../../src/api/responses/field-table.js';
import { decodeResponsesRequest } from '../../src/api/responses/decode-request.js';
import { renderFieldTable, topLevelFields, wireProtocols, type FieldTable } from '../../src/api/shared/field-table.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { dottedPrefixes, interfaceFields, markedSection, nestedCoverage, nestedVariants, type NestedPath } from '../helpers/sdk-request-fields.js';

const part = 'the part itself, translated as the `messages` row says';
const functionTool = 'the function’s definition, translated as the `tools` row says';

const styles: Array<{
  name: string;
  section: string;
  table: FieldTable;
  sdkFile: string;
  sdkInterface: string;
  decode: (body: Record<string, unknown>) => unknown;
  base: Record<string, unknown>;
  /**
   * The nested paths the table keeps dotted rows for. At each, every property of the SDK's types
   * needs a row, unless it is listed here with why; variants outside `accepted` must be refused
   * as a whole by the decoder.
   */
  nested: Record<string, NestedPath>;
  /** Bodies (over `base`) with a nested field a row says is refused, and the field the refusal names. */
  refusedNested: Array<[Record<string, unknown>, string]>;
}> = [
  {
    name: 'Chat Completions',
    section: 'chat-completions',
    table: chatCompletionsFieldTable,
    sdkFile: 'openai/resources/chat/completions/completions.d.ts',
    sdkInterface: 'ChatCompletionCreateParamsBase',
    decode: decodeChatCompletionsRequest,
    base: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    nested: {
      // Legacy `function` messages are refused by their role.
      'messages[]': {
        discriminator: 'role',
        accepted: ['system', 'developer', 'user', 'assistant', 'tool'],
        covered: {
          role: 'the discriminator, translated as the `messages` row says',
          content: 'the message itself, translated as the `messages` row says',
          tool_calls: 'the assistant’s tool calls, translated as the `messages` row says',
          tool_call_id: 'the call a tool result answers, translated as the `messages` row says',
        },
      },
      // Text and image parts (text and refusal in an assistant message); audio and files are refused by their type.
      'messages[].content[]': {
        accepted: ['text', 'image_url', 'refusal'],
        covered: { type: part, text: part, image_url: part, refusal: part },
      },
    },
    refusedNested: [
      [{ messages: [{ role: 'assistant', content: 'x', audio: { id: 'a' } }] }, 'messages[0].audio'],
      [{ messages: [{ role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }] }, 'messages[0].function_call'],
      [{ messages: [{ role: 'user', content: [{ type: 'text', text: 'x', prompt_cache_breakpoint: { mode: 'implicit' } }] }] }, 'messages[0].content[0].prompt_cache_breakpoint.mode'],
    ],
  },
  {
    name: 'Responses',
    section: 'responses',
    table: responsesFieldTable,
    sdkFile: 'openai/resources/responses/responses.d.ts',
    sdkInterface: 'ResponseCreateParamsBase',
    decode: (body) => decodeResponsesRequest(body),
    base: { model: 'm', input: 'hi' },
    nested: {
      // Functions, namespaces, web search and tool_search; every other built-in tool is refused by its type.
      'tools[]': {
        accepted: [
          'function', 'namespace', 'web_search', 'web_search_2025_08_26', 'web_search_preview', 'web_search_preview_2025_03_11', 'tool_search',
          'file_search', 'code_interpreter', 'image_generation', 'mcp',
        ],
        covered: {
          type: 'the discriminator: the `tools[].type=…` rows and the `tools` row say what each type becomes',
          name: functionTool,
          description: functionTool,
          parameters: functionTool,
          tools: 'a namespace’s functions, as the `tools[].type=namespace` row says',
          // The settings of the hosted tools no provider runs here: the tool itself is left out, as its `tools[].type=…` row says.
          ...Object.fromEntries(
            [
              'action', 'allowed_tools', 'authorization', 'background', 'connector_id', 'container', 'headers', 'input_fidelity', 'input_image_mask',
              'max_num_results', 'model', 'moderation', 'output_compression', 'output_format', 'partial_images', 'quality', 'ranking_options',
              'require_approval', 'server_description', 'server_label', 'server_url', 'size', 'tunnel_id', 'vector_store_ids',
            ].map((key) => [key, 'a setting of a hosted tool the request is served without (its `tools[].type=…` row)']),
          ),
        },
      },
      text: {},
      reasoning: {},
    },
    refusedNested: [
      [{ tools: [{ type: 'web_search_preview', search_content_types: ['text'] }] }, 'tools[0].search_content_types'],
      [{ reasoning: { effort: 'low', mode: 'pro' } }, 'reasoning.mode'],
    ],
  },
];

function refusalOf(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe.each(styles)('the $name field table', (style) => {
  it('has a row for every field of the openai SDK request type', () => {
    const fields = interfaceFields(style.sdkFile, style.sdkInterface);
    expect(fields.length).toBeGreaterThan(25);
    const rows = topLevelFields(style.table);
    expect(fields.filter((field) => !rows.has(field))).toEqual([]);
  });

  it('keeps a description of every nested path it has dotted rows for', () => {
    expect(dottedPrefixes(style.table.map((row) => row.field))).toEqual(Object.keys(style.nested).sort());
  });

  it('has a row for every nested field of the openai SDK request type', () => {
    const rows = new Set(style.table.map((row) => row.field));
    const refusedParam = (body: Record<string, unknown>) => {
      try {
        style.decode(body);
        return undefined;
      } catch (error) {
        if (error instanceof GatewayError) return error.param ?? undefined;
        throw error;
      }
    };
    for (const [path, spec] of Object.entries(style.nested)) {
      const report = nestedCoverage(rows, path, spec, nestedVariants(style.sdkFile, style.sdkInterface, path, spec.discriminator), refusedParam, style.base);
      expect(report, path).toEqual({ missing: [], stale: [], notRefused: [] });
    }
  });

  it('refuses by name the nested fields its rows say are refused', () => {
    for (const [extra, param] of style.refusedNested) expect(refusalOf(() => style.decode({ ...style.base, ...extra })).param, param).toBe(param);
  });

  it('states a handling on every provider protocol for each row, once per field', () => {
    const names = style.table.map((row) => row.field);
    expect(new Set(names).size).toBe(names.length);
    for (const row of style.table) {
      for (const protocol of wireProtocols) expect(['native', 'translated', 'emulated', 'hint', 'refused']).toContain(row.handling[protocol].kind);
    }
  });

  it('is what the decoder accepts: a field without a row is refused by name', () => {
    const error = refusalOf(() => style.decode({ ...style.base, max_tokenz: 5 }));
    expect(error.param).toBe('max_tokenz');
    expect(error.message).toBe("Unsupported parameter: 'max_tokenz' is not supported.");
    for (const field of topLevelFields(style.table)) {
      // Any refusal of a known field names something more specific than "not a field of the style".
      try {
        style.decode({ ...style.base, [field]: null });
      } catch (error) {
        expect((error as GatewayError).message).not.toBe(`Unsupported parameter: '${field}' is not supported.`);
      }
    }
  });

  it('is rendered in docs/api-fields.md between its markers', () => {
    const page = readFileSync(new URL('../../docs/api-fields.md', import.meta.url), 'utf8');
    expect(markedSection(page, style.section)).toBe(renderFieldTable(style.table));
  });
});
