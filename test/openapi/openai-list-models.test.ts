import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';

/**
 * `GET /v1/models` against the schema OpenAI publishes for `GET /models` (issue 46 item 7):
 * `ListModelsResponse` and its `Model`, excerpted unchanged from OpenAI's OpenAPI document
 * (`__fixtures__/SOURCES.md`). OpenRouter's fields ride along: the schema does not close `Model`.
 */
interface OpenApiExcerpt {
  paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> } }>;
  components: { schemas: Record<string, unknown> };
}

const excerpt = parse(readFileSync(new URL('./__fixtures__/openai-list-models.yaml', import.meta.url), 'utf8')) as OpenApiExcerpt;

/** The 200 answer's schema of `GET /models`, resolving the document's own `$ref`s. */
function compileListModels() {
  // The vendor's annotations and formats: `x-` keywords are documentation, `unixtime` an integer of seconds.
  // Unknown keywords refused (none of the document's goes unread); OpenAI's `Model` has `required` without `type: object`.
  const ajv = new Ajv2020({ allErrors: true, strictSchema: true, strictTypes: false });
  ajv.addKeyword('x-stainless-const');
  ajv.addKeyword('x-oaiMeta');
  // The document's container of schemas, reached by the `$ref`s below.
  ajv.addKeyword('components');
  ajv.addFormat('unixtime', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) && value >= 0 });
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addSchema({ components: excerpt.components }, 'openai.yaml');
  const reference = excerpt.paths['/models'].get.responses['200'].content['application/json'].schema.$ref;
  expect(reference).toBe('#/components/schemas/ListModelsResponse');
  return ajv.compile({ $ref: `openai.yaml${reference}` });
}

let gateway: TestApp;

beforeAll(async () => {
  gateway = await startTestApp();
});
afterAll(() => gateway.close());

describe('GET /v1/models as OpenAI’s ListModelsResponse', () => {
  it('validates, every model with object, created and owned_by, OpenRouter’s fields kept', async () => {
    const validate = compileListModels();
    // The schema does refuse a list without OpenAI's fields (so a pass means something).
    expect(validate({ data: [{ id: 'acme/chat-small', created: 1 }] })).toBe(false);

    const response = await gateway.app.inject({ method: 'GET', url: '/v1/models' });
    expect(response.statusCode).toBe(200);
    const list = response.json() as { object: string; data: Array<Record<string, unknown>>; total_count: number; links: unknown };
    const valid = validate(list);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(list.data.length).toBeGreaterThan(1);
    for (const model of list.data) {
      expect(model).toMatchObject({ object: 'model', owned_by: String(model.id).split('/')[0], created: expect.any(Number) });
      expect(model).toHaveProperty('canonical_slug');
      expect(model).toHaveProperty('pricing');
    }
    expect(list).toMatchObject({ object: 'list', total_count: list.data.length, links: { next: null } });
  });

  it('sends one model the same way on the list as GET /v1/models/{id}', async () => {
    const list = (await gateway.app.inject({ method: 'GET', url: '/v1/models?limit=1' })).json() as { data: Array<{ id: string }> };
    const one = (await gateway.app.inject({ method: 'GET', url: `/v1/models/${list.data[0].id}` })).json() as unknown;
    expect(one).toEqual(list.data[0]);
  });
});
