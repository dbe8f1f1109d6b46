/**
 * The simulator's "video": a structurally valid ISO base media file (MP4 box layout) of about
 * 60 bytes, an `ftyp` box (brand `isom`, compatible `isom`, `mp41`) followed by a `free` box that
 * names the job. Players will not show a picture (there is no `moov`), but anything that checks
 * the container signature, and byte-for-byte comparisons in tests, work.
 */
export function buildVideoBytes(jobId: string): Buffer {
  const ftyp = box('ftyp', Buffer.concat([Buffer.from('isom'), uint32(512), Buffer.from('isommp41')]));
  const free = box('free', Buffer.from(`switchyard simulator video ${jobId}`, 'utf8'));
  return Buffer.concat([ftyp, free]);
}

function box(type: string, payload: Buffer): Buffer {
  return Buffer.concat([uint32(8 + payload.length), Buffer.from(type, 'latin1'), payload]);
}

function uint32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
}
