import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/**
 * One binary message of AWS's event stream (application/vnd.amazon.eventstream: prelude, string
 * headers, payload, CRC32s), encoded by AWS's own codec rather than the gateway's decoder's
 * module, so that the simulator checks the gateway's framing instead of mirroring it.
 */
const codec = new EventStreamCodec(toUtf8, fromUtf8);

export function encodeEventStreamMessage(message: { headers: Record<string, string>; body: string }): Uint8Array {
  const headers: MessageHeaders = {};
  for (const [name, value] of Object.entries(message.headers)) headers[name] = { type: 'string', value };
  return codec.encode({ headers, body: fromUtf8(message.body) });
}
