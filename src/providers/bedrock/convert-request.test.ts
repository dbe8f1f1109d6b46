import { describe, expect, it } from 'vitest';
import type { TextRequest } from '../../core/text-request.js';
import { convertToConverseRequest, converseModelFamily } from './convert-request.js';
import type { ProviderConfig } from '../../config/types.js';
import { bedrockModelUrl } from '../aws/bedrock-model-url.js';

const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const nova = 'amazon.nova-pro-v1:0';
const user = (text: string): TextRequest['messages'][number] => ({ role: 'user', content: [{ type: 'text', text }] });
const request = (fields: Partial<TextRequest> = {}): TextRequest => ({ messages: [user('Hi')], stream: false, ...fields });

describe('convertToConverseRequest', () => {
  it('puts system blocks, inferenceConfig and the turns where Converse wants them, with cache points after marked text', () => {
    const body = convertToConverseRequest(
      request({
        messages: [
          { role: 'system', content: 'Be brief.', cacheControl: { type: 'ephemeral' } },
          { role: 'user', content: [{ type: 'text', text: 'Long document', cacheControl: { type: 'ephemeral', ttl: '1h' } }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } }] },
        ],
        maxTokens: 100,
        temperature: 0.5,
        topP: 0.9,
        stop: ['END'],
      }),
      nova,
    );
    expect(body).toEqual({
      system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
      messages: [{ role: 'user', content: [{ text: 'Long document' }, { cachePoint: { type: 'default', ttl: '1h' } }, { image: { format: 'png', source: { bytes: 'iVBOR' } } }] }],
      inferenceConfig: { maxTokens: 100, temperature: 0.5, topP: 0.9, stopSequences: ['END'] },
    });
  });

  it('sends a tool round trip as toolUse and toolResult, results first in their user turn', () => {
    const body = convertToConverseRequest(
      request({
        messages: [
          user('Weather?'),
          { role: 'assistant', content: [{ type: 'text', text: '' }, { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
          { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: 'sunny' }], isError: true },
          user('Thanks'),
        ],
        tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: true }],
        toolChoice: 'required',
      }),
      claude,
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather?' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'call_1', name: 'get_weather', input: { city: 'Oslo' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: 'sunny' }], status: 'error' } }, { text: 'Thanks' }] },
    ]);
    expect(body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'get_weather', description: 'Weather', inputSchema: { json: { type: 'object' } }, strict: true } }], toolChoice: { any: {} } });
  });

  it('maps tool_choice, and leaves the tools out for none unless the conversation already used them', () => {
    const tools = [{ name: 'f', parameters: { type: 'object' } }];
    expect(convertToConverseRequest(request({ tools, toolChoice: { type: 'tool', name: 'f' } }), nova).toolConfig?.toolChoice).toEqual({ tool: { name: 'f' } });
    expect(convertToConverseRequest(request({ tools, toolChoice: 'auto' }), nova).toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(convertToConverseRequest(request({ tools, toolChoice: 'none' }), nova).toolConfig).toBeUndefined();
    const used = request({
      tools,
      toolChoice: 'none',
      messages: [user('a'), { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{}' }] }, { role: 'tool', toolCallId: 'c', content: [{ type: 'text', text: 'r' }] }],
    });
    expect(convertToConverseRequest(used, nova).toolConfig).toEqual({ tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } }] });
  });

  it('asks each family for reasoning in its own words', () => {
    expect(convertToConverseRequest(request({ maxTokens: 8000, reasoning: { maxTokens: 2000 } }), claude).additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2000 } });
    expect(convertToConverseRequest(request({ reasoning: { effort: 'high' } }), claude)).toMatchObject({ inferenceConfig: { maxTokens: 16384 + 4096 }, additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 16384 } } });
    expect(convertToConverseRequest(request({ reasoning: { adaptive: true } }), claude).additionalModelRequestFields).toEqual({ thinking: { type: 'adaptive' } });
    expect(convertToConverseRequest(request({ reasoning: { maxTokens: 5000 } }), 'us.amazon.nova-2-lite-v1:0').additionalModelRequestFields).toEqual({ reasoningConfig: { type: 'enabled', maxReasoningEffort: 'medium' } });
    expect(convertToConverseRequest(request({ reasoning: { effort: 'low' } }), 'openai.gpt-oss-120b-1:0').additionalModelRequestFields).toEqual({ reasoning_effort: 'low' });
    expect(convertToConverseRequest(request({ reasoning: { effort: 'high' } }), 'deepseek.r1-v1:0').additionalModelRequestFields).toBeUndefined();
    expect(() => convertToConverseRequest(request({ maxTokens: 1000, reasoning: { maxTokens: 2000 } }), claude)).toThrow(/must be less than 'max_tokens'/);
  });

  it('sends top_k where the family takes one and refuses it elsewhere, and refuses what Converse has no field for', () => {
    expect(convertToConverseRequest(request({ topK: 40 }), claude).additionalModelRequestFields).toEqual({ top_k: 40 });
    expect(convertToConverseRequest(request({ topK: 40 }), nova).additionalModelRequestFields).toEqual({ inferenceConfig: { topK: 40 } });
    expect(() => convertToConverseRequest(request({ topK: 40 }), 'meta.llama3-3-70b-instruct-v1:0')).toThrow(/top_k/);
    expect(() => convertToConverseRequest(request({ seed: 1 }), nova)).toThrow(/'seed'/);
    expect(() => convertToConverseRequest(request({ frequencyPenalty: 1 }), nova)).toThrow(/'frequency_penalty'/);
    expect(() => convertToConverseRequest(request({ responseFormat: { type: 'json_object' } }), nova)).toThrow(/json_schema/);
    expect(() => convertToConverseRequest(request({ messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } }] }] }), nova)).toThrow(/does not fetch image URLs/);
  });

  it('sends an s3:// image as its S3 location', () => {
    const body = convertToConverseRequest(request({ messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 's3://bucket/photos/cat.JPG' } }] }] }), nova);
    expect(body.messages[0]!.content).toEqual([{ image: { format: 'jpeg', source: { s3Location: { uri: 's3://bucket/photos/cat.JPG' } } } }]);
  });

  it('sends a JSON schema as outputConfig.textFormat, the schema as text', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(convertToConverseRequest(request({ responseFormat: { type: 'json_schema', name: 'answer', schema } }), nova).outputConfig).toEqual({
      textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'answer' } } },
    });
  });

  it('gives Mistral models nine-character tool call ids, the same for a call and its result', () => {
    const conversation = request({
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      messages: [
        user('a'),
        { role: 'assistant', content: [{ type: 'tool-call', id: 'tooluse_bpe71yCfRu2b5i-nKGDr5g', name: 'f', arguments: '{}' }, { type: 'tool-call', id: 'tooluse_bpe71yCfRu2b5i-other', name: 'f', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'tooluse_bpe71yCfRu2b5i-nKGDr5g', content: [{ type: 'text', text: 'r1' }] },
        { role: 'tool', toolCallId: 'tooluse_bpe71yCfRu2b5i-other', content: [{ type: 'text', text: 'r2' }] },
      ],
    });
    const body = convertToConverseRequest(conversation, 'mistral.mistral-large-2407-v1:0');
    const calls = body.messages[1]!.content.map((block) => ('toolUse' in block ? block.toolUse.toolUseId : ''));
    const results = body.messages[2]!.content.map((block) => ('toolResult' in block ? block.toolResult.toolUseId : ''));
    expect(calls.every((id) => /^[a-zA-Z0-9]{9}$/.test(id))).toBe(true);
    expect(new Set(calls).size).toBe(2);
    expect(results).toEqual(calls);
    expect(convertToConverseRequest(conversation, nova).messages[1]!.content[0]).toMatchObject({ toolUse: { toolUseId: 'tooluse_bpe71yCfRu2b5i-nKGDr5g' } });
  });

  it('leaves out blank assistant text and trims a prefill’s trailing whitespace, which Bedrock refuses', () => {
    const body = convertToConverseRequest(request({ messages: [user('a'), { role: 'assistant', content: [{ type: 'text', text: '  \n' }, { type: 'text', text: 'b' }] }, user('c'), { role: 'assistant', content: [{ type: 'text', text: 'The answer is ' }] }] }), nova);
    expect(body.messages[1]).toEqual({ role: 'assistant', content: [{ text: 'b' }] });
    expect(body.messages[3]).toEqual({ role: 'assistant', content: [{ text: 'The answer is' }] });
  });

  it('sends back signed reasoning only', () => {
    const body = convertToConverseRequest(
      request({ messages: [user('a'), { role: 'assistant', content: [{ type: 'reasoning', text: 'hm', signature: 'sig' }, { type: 'reasoning', text: 'unsigned' }, { type: 'text', text: 'b' }] }, user('c')] }),
      claude,
    );
    expect(body.messages[1]).toEqual({ role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'hm', signature: 'sig' } } }, { text: 'b' }] });
  });
});

describe('Converse model ids and URLs', () => {
  it('tells the families apart in foundation model ids, inference profiles and ARNs', () => {
    expect(converseModelFamily('anthropic.claude-3-haiku-20240307-v1:0')).toBe('claude');
    expect(converseModelFamily('arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude');
    expect(converseModelFamily('us.amazon.nova-lite-v1:0')).toBe('nova');
    expect(converseModelFamily('mistral.mistral-large-2407-v1:0')).toBe('mistral');
    expect(converseModelFamily('meta.llama3-3-70b-instruct-v1:0')).toBe('other');
  });

  it('puts the model id in one encoded path segment', () => {
    expect(bedrockModelUrl({ baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com/' } as ProviderConfig, 'amazon.nova-pro-v1:0', 'converse')).toBe('https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse');
    expect(bedrockModelUrl({ baseUrl: 'https://x' } as ProviderConfig, 'arn:aws:bedrock:us-east-1:1:inference-profile/us.amazon.nova-pro-v1:0', 'converse-stream')).toBe('https://x/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.amazon.nova-pro-v1%3A0/converse-stream');
  });
});
