/**
 * Summaries and examples for the OpenAPI document, keyed by `METHOD url`. They change only the
 * document: the routes' own schemas still do the validating (the text styles check their fields
 * against their field tables, so their body schema is a plain object).
 */
type Documented = Record<string, unknown>;

const ok = (description: string, example: unknown) => ({ 200: { description, type: 'object', examples: [example] } });

function withBodyExample(summary: string, example: Record<string, unknown>, response?: Record<string, unknown>) {
  return (schema: Documented): Documented => ({
    summary,
    body: { ...((schema.body as Documented | undefined) ?? { type: 'object' }), examples: [example] },
    ...(response ? { response } : {}),
  });
}

export const openApiExamples: Record<string, (schema: Documented) => Documented> = {
  'POST /v1/chat/completions': withBodyExample(
    'Chat Completions (OpenAI style), for every text model',
    { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hi' }], max_tokens: 64 },
    ok('A chat completion (or an SSE stream with `stream: true`)', {
      id: 'req_01J…', object: 'chat.completion', created: 1795391513, model: 'openai/gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi!' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12, cost: 0.0000032 },
    }),
  ),
  'POST /v1/responses': withBodyExample('Responses (OpenAI style), for every text model', {
    model: 'anthropic/claude-sonnet-4.5', input: 'Say hi', max_output_tokens: 64,
  }),
  'POST /v1/messages': withBodyExample('Messages (Anthropic style), for every text model', {
    model: 'google/gemini-2.5-flash', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }],
  }),
  'POST /v1/keys': withBodyExample(
    'Create an API key (management keys only); the secret is shown once',
    { name: 'ci', limit: 5, limit_reset: 'daily', max_price: { prompt: 1, completion: 4 } },
    { 201: { description: 'The key and its secret', type: 'object', examples: [{ data: { id: 'key_01J…', name: 'ci', label: 'sy_abc…wxyz', limit: 5 }, key: 'sy_…' }] } },
  ),
  'GET /v1/credits': () => ({
    summary: 'Balance and total usage of the account',
    response: ok('Credits in USD', { data: { total_credits: 10, total_usage: 0.25, balance: 9.75 } }),
  }),
  'POST /v1/credits/redeem': withBodyExample(
    'Redeem a redemption code (management key): once per code; more than 5 wrong codes in 10 minutes is 429',
    { code: 'SY-7Q2M-0KXD-4H9T-B3WE' },
    ok('The amount credited and the new balance, in USD', { data: { amount: 5, balance: 14.75 } }),
  ),
  'POST /admin/redemption-codes': withBodyExample(
    'Create a batch of redemption codes; the codes are in this answer only (the database keeps their hashes)',
    { amount: 5, count: 100, expires_at: '2027-01-31T23:59:59Z', note: 'spring fair' },
    { 201: { description: 'The batch and its codes', type: 'object', examples: [{ data: { id: 'rdb_01J…', amount: 5, count: 100, redeemed: 0, note: 'spring fair', expires_at: '2027-01-31T23:59:59.000Z', created_at: '2026-12-07T19:30:00.000Z', codes: ['SY-7Q2M-0KXD-4H9T-B3WE'] } }] } },
  ),
  'GET /v1/key': () => ({
    summary: 'The calling key itself (any key): its limit, usage and what is left of the limit',
    response: ok('The key object', { data: { id: 'key_01J…', name: 'ci', label: 'sy_abc…wxyz', management: false, limit: 5, limit_remaining: 4.75, limit_reset: 'daily', usage: 0.25, usage_daily: 0.25, usage_weekly: 0.25, usage_monthly: 0.25 } }),
  }),
  'POST /v1/videos': withBodyExample('Create a video task', { model: 'openai/sora-2', prompt: 'A cat on a skateboard', seconds: 4 }),
  'POST /v1/audio/speech': withBodyExample('Speech synthesis: the whole audio file', { model: 'openai/gpt-4o-mini-tts', input: 'Hello', voice: 'alloy' }),
  'POST /v1/embeddings': withBodyExample('Embeddings in OpenAI\'s shape, for every embedding model', { model: 'openai/text-embedding-3-small', input: ['sunny day at the beach', 'rainy day in the city'], dimensions: 256 }),
  'POST /v1/images/generations': withBodyExample('Image generation', { model: 'openai/gpt-image-1', prompt: 'A red bicycle', n: 1 }),
};
