import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeGeminiRequest } from '../../src/api/gemini/decode-request.js';
import { geminiFieldTable } from '../../src/api/gemini/field-table.js';
import { renderFieldTable, topLevelFields, wireProtocols } from '../../src/api/shared/field-table.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { interfaceFields, markedSection, nestedVariants } from '../helpers/sdk-request-fields.js';

const sdk = '@google/genai/dist/genai.d.ts';
const base = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
const rows = new Set(geminiFieldTable.map((row) => row.field));

/**
 * `GenerateContentConfig` fields the SDK never sends: options of the client itself. Every other
 * field reaches the REST body, at its top level or in `generationConfig`
 * (`generateContentConfigToMldev` in the SDK), and needs a row at one of the two.
 */
const clientOnly: Record<string, string> = {
  httpOptions: 'the SDK’s own HTTP options (base URL, headers, timeout)',
  abortSignal: 'cancels the SDK’s call; the gateway sees the connection close',
  automaticFunctionCalling: 'the SDK calls the functions itself and sends their results as functionResponse parts',
  automaticContinuation: 'the SDK repeats a request with continuationToken, which has its own row',
};

/** Nested objects whose fields are covered by their parent row, with why. */
const coveredNested: Record<string, Record<string, string>> = {
  'toolConfig.functionCallingConfig': {
    mode: 'the mode itself, as the functionCallingConfig row says',
    allowedFunctionNames: 'the functions ANY may call, as the functionCallingConfig row says',
    streamFunctionCallArguments: 'streamed arguments: the gateway sends each call whole, as the gemini adapter assembles it',
  },
};

function refusedParam(body: Record<string, unknown>): string | undefined {
  try {
    decodeGeminiRequest(body, 'm', false);
    return undefined;
  } catch (error) {
    if (error instanceof GatewayError) return error.param ?? undefined;
    throw error;
  }
}

describe('the Gemini field table', () => {
  it('has a row for every GenerateContentConfig field the SDK sends, at the top level or in generationConfig', () => {
    const fields = interfaceFields(sdk, 'GenerateContentConfig');
    expect(fields.length).toBeGreaterThan(30);
    const missing = fields.filter((field) => !(field in clientOnly) && !rows.has(field) && !rows.has(`generationConfig.${field}`));
    expect(missing).toEqual([]);
    expect(Object.keys(clientOnly).filter((field) => !fields.includes(field))).toEqual([]);
  });

  it('has a row for every field of the REST GenerationConfig', () => {
    const fields = interfaceFields(sdk, 'GenerationConfig');
    expect(fields.filter((field) => !rows.has(`generationConfig.${field}`))).toEqual([]);
  });

  it.each([
    ['generationConfig.thinkingConfig', 'thinkingConfig'],
    ['toolConfig', 'toolConfig'],
    ['toolConfig.functionCallingConfig', 'toolConfig.functionCallingConfig'],
    ['tools[]', 'tools[]'],
  ])('has a row for every field of %s', (path, sdkPath) => {
    const properties = new Set(nestedVariants(sdk, 'GenerateContentConfig', sdkPath, '').flatMap((variant) => variant.properties));
    // `tools` also takes a CallableTool, which the SDK turns into its declarations before sending.
    for (const callable of ['callTool', 'tool']) properties.delete(callable);
    expect(properties.size).toBeGreaterThan(1);
    const covered = coveredNested[path] ?? {};
    expect([...properties].filter((property) => !rows.has(`${path}.${property}`) && !(property in covered))).toEqual([]);
  });

  it('refuses a top-level field, a generationConfig field and a tool without a row, by name', () => {
    expect(refusedParam({ ...base, max_tokenz: 5 })).toBe('maxTokenz');
    expect(refusedParam({ ...base, generationConfig: { maxTokens: 5 } })).toBe('generationConfig.maxTokens');
    expect(refusedParam({ ...base, tools: [{ codeExecution: {} }] })).toBe('tools[].codeExecution');
  });

  it('refuses by name what its rows say is refused', () => {
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ cachedContent: 'cachedContents/abc' }, 'cachedContent'],
      [{ continuationToken: 'x' }, 'continuationToken'],
      [{ generationConfig: { candidateCount: 2 } }, 'generationConfig.candidateCount'],
      [{ generationConfig: { responseLogprobs: true } }, 'generationConfig.responseLogprobs'],
      [{ generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }, 'generationConfig.responseModalities'],
      [{ generationConfig: { speechConfig: {} } }, 'generationConfig.speechConfig'],
      [{ generationConfig: { responseMimeType: 'text/x.enum' } }, 'generationConfig.responseMimeType'],
      [{ tools: [{ urlContext: {} }] }, 'tools[].urlContext'],
    ];
    for (const [extra, param] of refused) expect(refusedParam({ ...base, ...extra }), param).toBe(param);
    // Their neutral values are accepted.
    expect(refusedParam({ ...base, generationConfig: { candidateCount: 1, responseLogprobs: false, responseModalities: ['TEXT'] } })).toBeUndefined();
  });

  it('states a handling on every provider protocol for each row, once per field', () => {
    const names = geminiFieldTable.map((row) => row.field);
    expect(new Set(names).size).toBe(names.length);
    for (const row of geminiFieldTable) {
      for (const protocol of wireProtocols) expect(['native', 'translated', 'emulated', 'hint', 'refused']).toContain(row.handling[protocol].kind);
    }
  });

  it('accepts every top-level field it has a row for (a null is not refused as unknown)', () => {
    for (const field of topLevelFields(geminiFieldTable)) {
      try {
        decodeGeminiRequest({ ...base, [field]: null }, 'm', false);
      } catch (error) {
        expect((error as GatewayError).message).not.toBe(`Unsupported parameter: '${field}' is not supported.`);
      }
    }
  });

  it('is rendered in docs/api-fields.md between its markers', () => {
    const page = readFileSync(new URL('../../docs/api-fields.md', import.meta.url), 'utf8');
    expect(markedSection(page, 'gemini')).toBe(renderFieldTable(geminiFieldTable));
  });
});
