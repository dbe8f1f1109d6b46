import { describe, expect, it } from 'vitest';
import { priceRerank } from '../billing/price-rerank.js';
import { estimateRerankUnits } from './estimate-rerank-units.js';

describe('the most a rerank can be billed', () => {
  it('is one search for up to 100 short documents, and one more per further 100', () => {
    expect(estimateRerankUnits({ query: 'q', documents: Array.from({ length: 100 }, () => 'short') }).searches).toBe(1);
    expect(estimateRerankUnits({ query: 'q', documents: Array.from({ length: 101 }, () => 'short') }).searches).toBe(2);
  });

  it('counts a long document once per 500-token chunk, cut at max_tokens_per_doc (Cohere: 4096 by default)', () => {
    const long = 'x'.repeat(3000);
    // 3001 + 2 tokens at most → 7 chunks; 100 such documents are 700 chunks → 7 searches.
    expect(estimateRerankUnits({ query: 'q', documents: Array.from({ length: 100 }, () => long) }).searches).toBe(7);
    expect(estimateRerankUnits({ query: 'q', documents: Array.from({ length: 100 }, () => long), maxTokensPerDocument: 100 }).searches).toBe(1);
  });

  it('counts the query once per document among the tokens', () => {
    expect(estimateRerankUnits({ query: 'abc', documents: ['de', 'f'] }).tokens).toBe(2 * 4 + 3 + 2);
  });
});

describe('priceRerank', () => {
  it('is searches × the search price plus tokens × the prompt price per 1M, exactly', () => {
    const pricing = { prompt: 50_000_000n, completion: 0n, search: 2_000_000n };
    expect(priceRerank(pricing, { searches: 3, tokens: 0 })).toBe(6_000_000n);
    // 1,000 tokens at $0.05 per 1M: $0.00005, 50,000 nano-USD.
    expect(priceRerank({ prompt: 50_000_000n, completion: 0n }, { searches: 1, tokens: 1000 })).toBe(50_000n);
    expect(priceRerank(pricing, { searches: 1, tokens: 1000 })).toBe(2_050_000n);
  });
});
