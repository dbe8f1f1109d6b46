import { isIPv4, isIPv6 } from 'node:net';

/**
 * Whether an IP address is an ordinary public unicast address that the gateway may connect to
 * on a client's behalf. Everything else is refused: private, loopback, link-local, unique-local,
 * CGNAT, multicast, documentation, benchmarking, reserved ranges, and IPv6 forms that embed or
 * tunnel to IPv4 (checked through the embedded address, or refused).
 * Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and updates).
 */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return isPublicIpv4(parseIpv4(address));
  const bytes = parseIpv6(address);
  return bytes !== undefined && isPublicIpv6(bytes);
}

type Range = [bytes: number[], prefixLength: number];

const ipv4Special: Range[] = [
  [[0, 0, 0, 0], 8], // "this network"
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // shared address space (CGNAT)
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local (and cloud metadata services)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 31, 196, 0], 24], // AS112
  [[192, 52, 193, 0], 24], // AMT
  [[192, 88, 99, 0], 24], // 6to4 relay anycast
  [[192, 168, 0, 0], 16], // private
  [[192, 175, 48, 0], 24], // AS112 direct delegation
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, and 255.255.255.255 broadcast
];

/** Inside 2000::/3 (global unicast), the special-purpose blocks. */
const ipv6SpecialGlobal: Range[] = [
  [[0x20, 0x01, 0x00, 0x00], 23], // IETF protocol assignments: Teredo, ORCHID, benchmarking …
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0x20, 0x02], 16], // 6to4: tunnels to an arbitrary IPv4 address
  [[0x3f, 0xff], 20], // documentation
];

const ipv4Mapped: Range = [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96];
/** NAT64 well-known prefix: the last 32 bits are the IPv4 destination. */
const nat64: Range = [[0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96];

function isPublicIpv4(bytes: number[]): boolean {
  return !ipv4Special.some((range) => inRange(bytes, range));
}

function isPublicIpv6(bytes: number[]): boolean {
  // ::ffff:a.b.c.d and 64:ff9b::a.b.c.d reach the IPv4 address in their last 32 bits.
  if (inRange(bytes, ipv4Mapped) || inRange(bytes, nat64)) return isPublicIpv4(bytes.slice(12));
  // Only global unicast (2000::/3) is public: this refuses ::, ::1, IPv4-compatible ::/96,
  // unique-local fc00::/7, link-local fe80::/10, site-local fec0::/10 and multicast ff00::/8.
  if ((bytes[0] & 0xe0) !== 0x20) return false;
  return !ipv6SpecialGlobal.some((range) => inRange(bytes, range));
}

function inRange(bytes: number[], [base, prefixLength]: Range): boolean {
  for (let bit = 0; bit < prefixLength; bit += 8) {
    const index = bit / 8;
    const bits = Math.min(8, prefixLength - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if ((bytes[index] & mask) !== ((base[index] ?? 0) & mask)) return false;
  }
  return true;
}

function parseIpv4(text: string): number[] {
  return text.split('.').map(Number);
}

/** 16 bytes, or undefined when not an IPv6 address. A zone (`%eth0`) is ignored. */
export function parseIpv6(input: string): number[] | undefined {
  let text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  if (!isIPv6(text)) return undefined;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    // A dotted IPv4 tail stands for the last two groups.
    tail = parseIpv4(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const missing = 8 - headGroups.length - restGroups.length;
  const groups = rest === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...restGroups];
  const bytes: number[] = [];
  for (const group of groups) {
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}
