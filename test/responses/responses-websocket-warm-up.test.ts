import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureLogLines, logLevels } from '../helpers/capture-log-lines.js';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { SocketClient, terminal } from '../helpers/socket-client.js';
import { testDatabases } from '../helpers/test-databases.js';

const maxCount = 2;
const maxBytes = 64 * 1024;

/**
 * Issue 45, item 5: a warm-up (`generate: false`) is free, but what it stores is not. Without
 * funds it is refused with the 402 of `POST /v1/responses`; each account keeps at most
 * `maxFreeStoredPerAccount` stored warm-ups and `maxFreeStoredBytesPerAccount` of them (2 and
 * 64 KiB here); each one stored is logged.
 */
describe.each(testDatabases())('Responses WebSocket warm-ups on $name: free, but bounded and needing funds', (database) => {
  let gateway: SimulatedGateway;
  const log = captureLogLines();
  beforeAll(async () => {
    gateway = await startSimulatedGateway({
      databaseUrl: database.url,
      credits: 100,
      logger: log.logger,
      configure: (config) => {
        config.server.responses = { retentionDays: 30, maxStoredBytes: 16 * 1024 * 1024, maxFreeStoredPerAccount: maxCount, maxFreeStoredBytesPerAccount: maxBytes };
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });
  afterEach(() => {
    expect(log.lines.filter((line) => line.level >= logLevels.error)).toEqual([]);
  });

  const storedOf = (accountId: string) =>
    gateway.test.context.store.db.selectFrom('stored_responses').select(['id', 'free']).where('account_id', '=', accountId).orderBy('created_at').execute();
  const warmUp = (extra: Record<string, unknown> = {}) => ({ type: 'response.create', generate: false, model: 'sim/openai-model', instructions: 'Be terse.', input: 'warm', ...extra });

  it('refuses a warm-up on an account with no funds, as HTTP refuses the request: 402, nothing stored', async () => {
    const broke = await gateway.test.createAccount({ credits: 0 });
    expect((await sendJson(gateway, broke.key, 'POST', '/v1/responses', { model: 'sim/openai-model', input: 'warm' })).status).toBe(402);
    const socket = new SocketClient(gateway.url, broke.key);
    await socket.opened();
    socket.send(warmUp());
    socket.send(warmUp({ store: false }));
    const refused = await socket.waitFor((message) => message.type === 'error', 2);
    for (const message of refused) expect(message).toMatchObject({ status: 402, error: { code: 'insufficient_balance' } });
    expect(socket.messages.filter(terminal)).toEqual([]);
    expect(await storedOf(broke.accountId)).toEqual([]);
    socket.close();
  });

  it('keeps at most the bound of stored warm-ups per account, in count and bytes, with a clear refusal; store: false and paid responses go on', async () => {
    const account = await gateway.test.createAccount({ credits: 10 });
    const socket = new SocketClient(gateway.url, account.key);
    await socket.opened();
    const from = log.lines.length;
    socket.send(warmUp({ input: 'first' }));
    socket.send(warmUp({ input: 'second' }));
    const warmed = await socket.waitFor(terminal, maxCount);
    const stored = await storedOf(account.accountId);
    expect(stored.map((row) => row.id)).toEqual(warmed.map((message) => message.response.id));
    expect(stored.every((row) => Number(row.free) === 1)).toBe(true);
    // Each one stored is on the operator's log, with its owner and size (never its text).
    const storedLines = log.lines.slice(from).filter((line) => line.msg === 'free response stored');
    expect(storedLines.map((line) => line.responseId)).toEqual(warmed.map((message) => message.response.id));
    expect(storedLines[0]).toMatchObject({ level: logLevels.info, accountId: account.accountId, size: expect.any(Number) });
    expect(JSON.stringify(storedLines)).not.toContain('Be terse.');

    socket.send(warmUp({ input: 'third' }));
    const [full] = await socket.waitFor((message) => message.type === 'error');
    expect(full).toMatchObject({ status: 429, error: { code: 'rate_limited', metadata: { limit_type: 'free_stored_responses' } } });
    expect(full.error.message).toContain(`the most allowed is ${maxCount}`);
    expect(await storedOf(account.accountId)).toHaveLength(maxCount);

    // Not stored: only the connection holds it, within its own bound. Paid responses are stored as ever.
    socket.send(warmUp({ input: 'kept on the connection', store: false }));
    socket.send({ type: 'response.create', model: 'sim/openai-model', input: 'paid' });
    const [, , notStored, paid] = await socket.waitFor(terminal, maxCount + 2);
    expect(notStored.response).toMatchObject({ status: 'completed', store: false });
    expect(paid.response).toMatchObject({ status: 'completed', store: true });
    expect((await storedOf(account.accountId)).map((row) => Number(row.free))).toEqual([1, 1, 0]);

    // Bytes: another account, one warm-up past the bound's bytes.
    const other = await gateway.test.createAccount({ credits: 10 });
    const big = new SocketClient(gateway.url, other.key);
    await big.opened();
    big.send(warmUp({ input: 'x'.repeat(maxBytes) }));
    const [tooBig] = await big.waitFor((message) => message.type === 'error');
    expect(tooBig).toMatchObject({ status: 429, error: { code: 'rate_limited', metadata: { limit_type: 'free_stored_responses' } } });
    expect(await storedOf(other.accountId)).toEqual([]);
    socket.close();
    big.close();
  });
});
