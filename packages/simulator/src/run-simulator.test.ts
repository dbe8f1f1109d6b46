import { describe, expect, it } from 'vitest';
import { postJson } from './__fixtures__/read-sse-events.js';
import { runSimulatorFromCli } from './run-simulator.js';

describe('runSimulatorFromCli', () => {
  it('starts with string options as a CLI parser gives them and prints the base URLs', async () => {
    const lines: string[] = [];
    const simulator = await runSimulatorFromCli({ port: '0', latency: '0', tps: '0', replyTokens: '5', apiKey: 'k' }, (line) => lines.push(line));
    try {
      expect(lines[0]).toBe(`simulator listening on ${simulator.url}`);
      expect(simulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(lines.slice(1).join('\n')).toContain(`${simulator.url}/openai/v1`);
      expect(lines.slice(1).join('\n')).toContain(`${simulator.url}/anthropic`);
      expect(lines.slice(1).join('\n')).toContain(`${simulator.url}/gemini/v1beta`);
      const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
      const response = await postJson(`${simulator.baseUrls.openai}/chat/completions`, body, { authorization: 'Bearer k' });
      expect(((await response.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(5);
    } finally {
      await simulator.close();
    }
  });

  it('keeps idle connections open for --keep-alive, and says so in Keep-Alive', async () => {
    const simulator = await runSimulatorFromCli({ port: '0', keepAlive: '120000' }, () => {});
    try {
      const response = await postJson(`${simulator.baseUrls.openai}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      await response.text();
      expect(response.headers.get('keep-alive')).toBe('timeout=120');
    } finally {
      await simulator.close();
    }
    await expect(runSimulatorFromCli({ keepAlive: 'long' }, () => {})).rejects.toThrow('--keep-alive must be a non-negative number');
  });

  it('refuses options that are not non-negative numbers, naming the flag', async () => {
    await expect(runSimulatorFromCli({ tps: 'fast' }, () => {})).rejects.toThrow('--tps must be a non-negative number');
    await expect(runSimulatorFromCli({ port: '80.5' }, () => {})).rejects.toThrow('--port must be a whole number');
    await expect(runSimulatorFromCli({ chunkTokens: '0' }, () => {})).rejects.toThrow(/chunkTokens/);
  });
});
