import fc from 'fast-check';

/** What a fuzzed request may authenticate with; resolved to real credentials by the suite. */
export type Credential = 'key' | 'management' | 'admin' | 'none' | 'garbage' | 'x-api-key';

export interface FuzzRequest {
  method: string;
  url: string;
  credential: Credential;
  headers: Record<string, string>;
  /** Sent as is (already text); undefined sends no body. */
  payload?: string;
}

/** Bytes → percent-encoding, so that lone surrogates and NULs reach the server as bytes. */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

const nastyString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', '\u0000', '\ud800', 'a\udfffb', '💥', '%', '../..', 'null', '1e400', ' ', 'x'.repeat(5_000), 'é'.repeat(300)),
);

const pathParameter = fc.oneof(
  nastyString.map(percentEncode),
  fc.constantFrom('%FF', '%', '%G1', '%C3%28', 'x'.repeat(600), 'acc_unknown', 'key_00000000000000000000000000', 'openai', 'gpt-4o'),
);

const modelId = fc.oneof(
  fc.constantFrom('sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model', 'sim/everywhere', 'sim/free-model:free', 'sim/opnai-model', 'openai/gpt-4o', ''),
  nastyString,
);

/**
 * What follows `models/` on the paths the Gemini routes' wildcard (`/v1/models/*`,
 * `/v1beta/models/*`) matches: calls with any method, and the catalog's and odd paths the same
 * pattern takes (long ids, `{id}/b/endpoints`, colons before a slash, empty segments).
 */
const modelsTail = fc.oneof(
  fc
    .tuple(fc.oneof(fc.constantFrom('sim/openai-model', 'sim/free-model:free', 'acme/nothing', 'sim%2Fopenai-model', '%E0%A4%A', ''), pathParameter), fc.constantFrom('generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'x', '', 'generateContent/', 'generateContent/b'))
    .map(([model, method]) => `${model}:${method}`),
  fc.array(fc.oneof(pathParameter, fc.constantFrom('b', 'endpoints', 'count', '', ':', 'a:b', 'x:generateContent', 'sim', 'openai-model')), { minLength: 1, maxLength: 5 }).map((segments) => segments.join('/')),
  fc.tuple(fc.integer({ min: 100, max: 2_000 }), fc.constantFrom('/b/endpoints', '/endpoints', '', '/', ':generateContent', ':generateContent/x')).map(([length, rest]) => `${'m'.repeat(length)}${rest}`),
);

/** The Gemini routes' patterns with every method, so that their wildcard meets the paths above. */
const modelsRoute = fc.record({ method: fc.constantFrom('POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH'), url: fc.constantFrom('/v1/models/*', '/v1beta/models/*') });

const directive = fc.constantFrom('', '', '', ' [[sim:status=500]]', ' [[sim:status=429,retry_after=0]]', ' [[sim:status=400]]', ' [[sim:disconnect_after=2]]', ' [[sim:malformed_after=2]]', ' [[sim:error_after=2]]', ' [[sim:no_usage]]', ' [[sim:bogus=1]]');

/** Any JSON value a hostile client might put in a field: wrong types, extremes, nesting. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 3 }),
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -1, 1e-10, 1e300, Number.MAX_SAFE_INTEGER, 2 ** 63, -0, 0.1 + 0.2, 1_000_000_001),
  nastyString,
  fc.boolean(),
  fc.constant(null),
);

const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'tool', 'developer'), nastyString),
    content: fc.oneof(
      fc.tuple(nastyString, directive).map(([text, fault]) => `hello ${text}${fault}`),
      fc.array(fc.record({ type: fc.constantFrom('text', 'image_url', 'input_text', 'image', 'tool_result'), text: nastyString }, { requiredKeys: [] }), { maxLength: 3 }),
      anyValue,
    ),
  },
  { requiredKeys: ['role'] },
);

const fieldValues: Record<string, fc.Arbitrary<unknown>> = {
  model: modelId,
  models: fc.array(modelId, { maxLength: 4 }),
  messages: fc.oneof(fc.array(message, { maxLength: 4 }), anyValue),
  input: fc.oneof(fc.tuple(nastyString, directive).map(([text, fault]) => `${text}${fault}`), fc.array(message, { maxLength: 3 }), anyValue),
  system: fc.oneof(nastyString, anyValue),
  stream: fc.oneof(fc.boolean(), anyValue),
  max_tokens: fc.oneof(fc.integer({ min: -5, max: 2_000 }), anyValue),
  max_output_tokens: fc.oneof(fc.integer({ min: -5, max: 2_000 }), anyValue),
  temperature: anyValue,
  tools: fc.oneof(fc.array(fc.record({ type: fc.constant('function'), function: fc.record({ name: nastyString, parameters: anyValue }) }), { maxLength: 2 }), anyValue),
  tool_choice: anyValue,
  provider: fc.oneof(fc.record({ order: fc.array(nastyString, { maxLength: 2 }), max_price: fc.record({ prompt: anyValue }), sort: nastyString }, { requiredKeys: [] }), anyValue),
  limit: anyValue,
  name: fc.oneof(nastyString, anyValue),
  management: anyValue,
  credits: anyValue,
  amount: anyValue,
  linked: anyValue,
  max_price: fc.oneof(fc.record({ prompt: anyValue, completion: anyValue }, { requiredKeys: [] }), anyValue),
  model_max_prices: fc.oneof(fc.dictionary(modelId, fc.record({ prompt: anyValue }, { requiredKeys: [] }), { maxKeys: 2 }), anyValue),
  requests_per_minute: anyValue,
  prompt: fc.oneof(nastyString, anyValue),
  n: anyValue,
  size: anyValue,
  seconds: anyValue,
  voice: anyValue,
  response_format: anyValue,
  operation: anyValue,
  images: anyValue,
  default_provider: anyValue,
  unknown_field: anyValue,
};

const fieldedBody = fc
  .subarray(Object.keys(fieldValues), { maxLength: 7 })
  .chain((keys) => fc.record(Object.fromEntries(keys.map((key) => [key, fieldValues[key]])) as Record<string, fc.Arbitrary<unknown>>))
  .map((body) => JSON.stringify(body));

const prompt = fc.tuple(fc.string({ maxLength: 40 }), directive).map(([text, fault]) => `hi ${text}${fault}`);
const textModel = fc.constantFrom('sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model', 'sim/everywhere', 'sim/backup');

/** Nearly valid text requests of the three styles, so that generation paths (and their faults) are reached. */
const textBody = fc
  .oneof(
    fc.record({ model: textModel, messages: fc.tuple(prompt).map(([content]) => [{ role: 'user', content }]), stream: fc.boolean(), max_tokens: fc.integer({ min: 1, max: 50 }) }),
    fc.record({ model: textModel, input: prompt, stream: fc.boolean(), max_output_tokens: fc.integer({ min: 16, max: 50 }) }),
  )
  .chain((body) => fc.record({ body: fc.constant(body), extra: fc.dictionary(fc.constantFrom(...Object.keys(fieldValues)), anyValue, { maxKeys: 1 }) }))
  .map(({ body, extra }) => JSON.stringify({ ...body, ...extra }));

const rawBody = fc.oneof(
  fc.constantFrom('{"limit":1e400}', '{"credits":-1e400}', '{"amount":1e-400}', '{"model":', '[]', 'null', '"text"', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '{}', ''),
  fc.integer({ min: 60, max: 30_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.jsonValue({ maxDepth: 5 }).map((value) => JSON.stringify(value)),
);

const contentType = fc.constantFrom('application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'multipart/form-data', 'multipart/form-data; boundary=xyz', 'application/x-www-form-urlencoded', 'application/octet-stream', '');

const queryKeys = ['limit', 'cursor', 'model', 'provider', 'key_id', 'status', 'from', 'to', 'author', 'supported_parameters', 'output_modalities', 'category', 'offset'];
const queryString = fc
  .dictionary(fc.constantFrom(...queryKeys), fc.oneof(nastyString.map(percentEncode), fc.integer().map(String), fc.constantFrom('-1', '1e9', '0', '501', 'NaN', '2026-13-45', 'true')), { maxKeys: 3 })
  .map((query) => Object.entries(query).map(([key, value]) => `${key}=${value}`).join('&'));

/** A request to one of the registered routes, with everything a client controls fuzzed. */
export function fuzzRequest(routes: Array<{ method: string; url: string }>): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...routes) }, { weight: 1, arbitrary: modelsRoute }),
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') }),
      parameters: fc.array(pathParameter, { minLength: 4, maxLength: 4 }),
      tail: modelsTail,
      query: fc.oneof(fc.constant(undefined), queryString),
      credential: fc.constantFrom<Credential>('key', 'key', 'key', 'management', 'admin', 'none', 'garbage', 'x-api-key'),
      contentType,
      body: fc.oneof({ weight: 5, arbitrary: fieldedBody }, { weight: 3, arbitrary: textBody }, { weight: 2, arbitrary: rawBody }, { weight: 1, arbitrary: fc.constant(undefined) }),
      extra: fc.dictionary(fc.constantFrom('idempotency-key', 'anthropic-version', 'accept', 'x-request-id', 'accept-encoding', 'x-title'), nastyString.map((text) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200)), { maxKeys: 2 }),
    })
    .map(({ route, method, parameters, tail, query, credential, contentType: type, body, extra }) => {
      let index = 0;
      const path = route.url.replace(/:[A-Za-z_]+/g, () => parameters[index++ % parameters.length]).replace('*', tail);
      const chosen = method ?? route.method;
      const headers: Record<string, string> = { ...extra };
      if (body !== undefined && type !== '') headers['content-type'] = type;
      return { method: chosen, url: query ? `${path}?${query}` : path, credential, headers, payload: body === undefined || chosen === 'GET' || chosen === 'HEAD' ? undefined : body };
    });
}

/**
 * A Responses WebSocket message as a client controls it: mostly `response.create` with fuzzed
 * fields (warm-ups and a wrong `generate` among them), else any text at all.
 */
export const fuzzSocketMessage: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ model: textModel, input: prompt, max_output_tokens: fc.integer({ min: 16, max: 50 }) }).map((body) => JSON.stringify({ type: 'response.create', ...body })) },
  { weight: 4, arbitrary: fc.tuple(fc.oneof(textBody, fieldedBody), fc.constantFrom(undefined, undefined, false, true, 'no')).map(([body, generate]) => JSON.stringify({ type: 'response.create', ...(JSON.parse(body) as object), ...(generate !== undefined && { generate }) })) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify({ type: 'response.create', input: value })) },
  { weight: 2, arbitrary: rawBody },
);
