import type { PassThroughRules } from '../../core/pass-through.js';
import type { FieldTable, WireProtocol } from './field-table.js';

/** Fields the pass-through itself sets or that carry the conversation as the protocol defines it. */
const structural = ['model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens'];

/**
 * A style's pass-through rules from its field table: the top-level fields native to `protocol`
 * may be forwarded as they came; anything else in a body means translation.
 */
export function passThroughRules(table: FieldTable, protocol: WireProtocol, gatewayOnly: string[]): PassThroughRules {
  const forwardable = new Set<string>([...structural, ...gatewayOnly]);
  for (const row of table) {
    if (row.field.includes('.')) continue;
    const kind = row.handling[protocol].kind;
    // A refused field got past the decoder only at its neutral value, which the provider takes too.
    if (kind === 'native' || kind === 'refused') forwardable.add(row.field);
  }
  return { protocol, forwardable, gatewayOnly };
}
