import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogLines, logLevels } from '../helpers/capture-log-lines.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

const mask = Buffer.from([1, 2, 3, 4]);

/** A masked client frame: FIN set unless `fin` is false, the payload XORed with `mask`. */
function frame(opcode: number, payload: Buffer, options: { fin?: boolean; rsv1?: boolean } = {}): Buffer {
  const first = (options.fin === false ? 0 : 0x80) | (options.rsv1 ? 0x40 : 0) | opcode;
  const masked = Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]));
  const length = payload.length < 126 ? Buffer.from([0x80 | payload.length]) : Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([Buffer.from([first]), length, mask, masked]);
}

/**
 * The frames of issue 45, item 6: each breaks RFC 6455 in one way. `ws` answers each with a close
 * frame of the matching code (1002 protocol error, 1007 invalid data, 1009 too big).
 */
const malformed: Array<{ name: string; bytes: Buffer; closeCode: number }> = [
  { name: 'an unmasked frame', bytes: Buffer.from([0x81, 0x05, ...Buffer.from('hello')]), closeCode: 1002 },
  { name: 'opcode 3 (reserved)', bytes: frame(0x3, Buffer.alloc(0)), closeCode: 1002 },
  { name: 'RSV1 without an extension', bytes: frame(0x1, Buffer.from('{}'), { rsv1: true }), closeCode: 1002 },
  { name: 'invalid UTF-8 in a text frame', bytes: frame(0x1, Buffer.from([0xc3, 0x28])), closeCode: 1007 },
  // 25 MiB announced in the 64-bit length, past the message limit: refused before any payload.
  { name: 'a 25 MiB length header', bytes: Buffer.concat([Buffer.from([0x82, 0x80 | 127, 0, 0, 0, 0, 0x01, 0x90, 0, 0]), mask]), closeCode: 1009 },
  { name: 'an oversized ping', bytes: frame(0x9, Buffer.alloc(200)), closeCode: 1002 },
  { name: 'a fragmented close', bytes: frame(0x8, Buffer.from([0x03, 0xe8]), { fin: false }), closeCode: 1002 },
];

/** Upgrades a raw TCP connection to the Responses WebSocket; resolves once the 101 is read. */
function upgrade(url: string, key: string | undefined): Promise<{ socket: Socket; received: Buffer[]; ended: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const received: Buffer[] = [];
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const text = Buffer.concat(received).toString('latin1');
      if (text.includes('\r\n\r\n') && received.length === 1) {
        if (!text.startsWith('HTTP/1.1 101')) reject(new Error(`no upgrade: ${text}`));
        received.splice(0, 1, Buffer.from(text.slice(text.indexOf('\r\n\r\n') + 4), 'latin1'));
        resolve({ socket, received, ended });
      }
    });
    socket.write(
      'GET /v1/responses HTTP/1.1\r\n' +
        `Host: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
        (key ? `Authorization: Bearer ${key}\r\n` : '') +
        '\r\n',
    );
  });
}

/** The close codes of the server's close frames in what it sent (its text frames skipped). */
function closeCodes(bytes: Buffer): number[] {
  const codes: number[] = [];
  let offset = 0;
  while (offset + 2 <= bytes.length) {
    const opcode = bytes[offset] & 0x0f;
    let length = bytes[offset + 1] & 0x7f;
    let start = offset + 2;
    if (length === 126) {
      length = bytes.readUInt16BE(offset + 2);
      start += 2;
    }
    if (opcode === 0x8 && length >= 2) codes.push(bytes.readUInt16BE(start));
    offset = start + length;
  }
  return codes;
}

/**
 * Malformed frames after a real upgrade, written byte by byte over a TCP socket, with and without
 * a key: each is refused with its RFC 6455 close code and logged as its HTTP twin (a request Node
 * cannot parse) is — one info line with `ws`'s code, no stack, and nothing at warn or above.
 */
describe('Responses WebSocket: malformed frames are a client’s mistake', () => {
  let gateway: SimulatedGateway;
  const log = captureLogLines();
  beforeAll(async () => {
    gateway = await startSimulatedGateway({ credits: 10, logger: log.logger });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  for (const withKey of [true, false]) {
    it.each(malformed)(`closes ${withKey ? 'a keyed' : 'an unkeyed'} socket on $name with its close code, and logs it at info without a stack`, async ({ bytes, closeCode }) => {
      const from = log.lines.length;
      const { socket, received, ended } = await upgrade(gateway.url, withKey ? gateway.key : undefined);
      // Without a key the socket is refused anyway (1008); the frame is sent before that answer.
      socket.write(bytes);
      await ended;
      const codes = closeCodes(Buffer.concat(received));
      expect(codes.length).toBeGreaterThan(0);
      if (withKey) expect(codes).toEqual([closeCode]);
      else expect([closeCode, 1008]).toContain(codes[0]);

      const lines = log.lines.slice(from);
      expect(lines.filter((line) => line.level >= logLevels.warn)).toEqual([]);
      expect(JSON.stringify(lines)).not.toMatch(/\n\s+at |"stack"/);
      if (codes[0] === closeCode) expect(lines.find((line) => line.msg === 'websocket protocol error')).toMatchObject({ level: logLevels.info, code: expect.stringMatching(/^WS_ERR_/) });
    });
  }

  it('still serves after every malformed frame', async () => {
    const answer = await fetch(`${gateway.url}/v1/credits`, { headers: { authorization: `Bearer ${gateway.key}` } });
    expect(answer.status).toBe(200);
  });
});
