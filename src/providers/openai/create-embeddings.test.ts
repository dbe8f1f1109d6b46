import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors/upstream-error.js';
import { readEmbeddings } from './create-embeddings.js';

describe('readEmbeddings (OpenAI /embeddings answers)', () => {
  it('places vectors by index, reads base64 float32, and takes usage.prompt_tokens', () => {
    const base64 = Buffer.from(new Float32Array([0.5, -0.25]).buffer).toString('base64');
    const result = readEmbeddings({ data: [{ index: 1, embedding: base64 }, { index: 0, embedding: [1, 2] }], usage: { prompt_tokens: 7 } }, 2, 'p');
    expect(result).toEqual({ vectors: [[1, 2], [0.5, -0.25]], promptTokens: 7, estimated: false });
  });

  it('marks an answer without usage estimated, for the caller to count', () => {
    expect(readEmbeddings({ data: [{ index: 0, embedding: [1] }] }, 1, 'p')).toEqual({ vectors: [[1]], promptTokens: 0, estimated: true });
  });

  it.each([
    [{ data: [{ index: 0, embedding: [1] }] }, 2],
    [{ data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }] }, 2],
    [{ data: [{ index: 5, embedding: [1] }] }, 1],
    [{ data: [{ index: 0, embedding: 'abc' }] }, 1],
    [{ data: [{ index: 0, embedding: ['x'] }] }, 1],
  ])('refuses %j for %i inputs as a 502 the router may retry elsewhere', (body, count) => {
    let caught: unknown;
    try {
      readEmbeddings(body as Parameters<typeof readEmbeddings>[0], count, 'p');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UpstreamError);
    expect((caught as UpstreamError).status).toBe(502);
  });
});
