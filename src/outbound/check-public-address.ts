import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address is an ordinary public unicast address that the gateway may connect to
 * on a client's behalf. Everything else is refused: private, loopback, link-local, unique-local,
 * CGNAT, multicast, documentation, benchmarking, reserved ranges, and IPv6 forms that embed or
 * tunnel to IPv4 (checked through the embedded address, or refused). The ranges are ipaddr.js's
 * (the IANA special-purpose registries); IPv6 must also be global unicast (2000::/3).
 */
export function isPublicAddress(address: string): boolean {
  const text = stripZone(address);
  if (!ipaddr.isValid(text)) return false;
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const ipv6 = parsed as ipaddr.IPv6;
  const range = ipv6.range();
  // ::ffff:a.b.c.d and 64:ff9b::a.b.c.d reach the IPv4 address in their last 32 bits.
  if (range === 'ipv4Mapped' || (range === 'rfc6052' && ipv6.match(nat64WellKnown))) {
    return new ipaddr.IPv4(ipv6.toByteArray().slice(12)).range() === 'unicast';
  }
  return range === 'unicast' && ipv6.match(globalUnicast);
}

const nat64WellKnown = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');

/** Without brackets and without a zone (`%eth0`). */
function stripZone(input: string): string {
  const text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const zone = text.indexOf('%');
  return zone === -1 ? text : text.slice(0, zone);
}

/** 16 bytes, or undefined when not an IPv6 address. A zone (`%eth0`) is ignored. */
export function parseIpv6(input: string): number[] | undefined {
  const text = stripZone(input);
  return ipaddr.IPv6.isValid(text) ? ipaddr.IPv6.parse(text).toByteArray() : undefined;
}
