import { FaultSyntaxError } from './fault-syntax-error.js';
import { DIRECTIVE_PATTERN, readDirectiveEntries } from './read-directive-entries.js';
import { SIMULATOR_PROTOCOLS, type FaultRule, type FaultSpec, type SimulatorProtocol } from './simulator-types.js';

export { FaultSyntaxError };

type FaultKey = keyof FaultSpec;
type NumericKey = Exclude<FaultKey, 'no_usage'>;

const NUMERIC_KEYS: ReadonlySet<string> = new Set<NumericKey>([
  'status',
  'retry_after',
  'latency',
  'disconnect_after',
  'malformed_after',
  'stall_after',
  'error_after',
  'reply_tokens',
  'extra_prompt_tokens',
]);

/**
 * Reads `[[sim:key=value,flag]]` directives from prompt text. Several directives merge, the
 * later one winning. Unknown keys are an error rather than ignored, so a typo in a test fails
 * loudly instead of silently testing nothing.
 */
export function parseDirectives(text: string): FaultSpec | undefined {
  if (!text.includes('[[sim:')) return undefined;
  const raw: Record<string, unknown> = {};
  for (const [key, value] of readDirectiveEntries(text)) {
    raw[key] = key === 'no_usage' ? value !== 'false' && value !== '0' : value === undefined ? undefined : Number(value);
  }
  return validateFaultSpec(raw);
}

/** The text without its directives, so that they do not echo into the reply. */
export function stripDirectives(text: string): string {
  return text.includes('[[sim:') ? text.replace(DIRECTIVE_PATTERN, ' ') : text;
}

export function validateFaultSpec(value: unknown): FaultSpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FaultSyntaxError('fault must be an object');
  const spec: FaultSpec = {};
  for (const [key, raw] of Object.entries(value)) {
    if (key === 'no_usage') {
      if (typeof raw !== 'boolean') throw new FaultSyntaxError('no_usage must be a boolean');
      spec.no_usage = raw;
    } else if (NUMERIC_KEYS.has(key)) {
      spec[key as NumericKey] = readNumber(key, raw);
    } else {
      throw new FaultSyntaxError(`unknown fault key: ${key}`);
    }
  }
  if (spec.status !== undefined && (!Number.isInteger(spec.status) || spec.status < 400 || spec.status > 599)) {
    throw new FaultSyntaxError('status must be an HTTP error status (400-599)');
  }
  return spec;
}

function readNumber(key: string, raw: unknown): number {
  // Seconds may be fractional; every other value counts events, tokens or milliseconds.
  const valid = typeof raw === 'number' && raw >= 0 && (key === 'retry_after' ? Number.isFinite(raw) : Number.isInteger(raw));
  if (!valid) throw new FaultSyntaxError(`${key} must be a non-negative ${key === 'retry_after' ? 'number' : 'integer'}`);
  return raw as number;
}

export function validateFaultRule(value: unknown): FaultRule {
  if (typeof value !== 'object' || value === null) throw new FaultSyntaxError('rule must be an object');
  const { match, fault, times } = value as Record<string, unknown>;
  const rule: FaultRule = { fault: validateFaultSpec(fault) };
  if (match !== undefined) {
    if (typeof match !== 'object' || match === null) throw new FaultSyntaxError('match must be an object');
    const { protocol, model } = match as Record<string, unknown>;
    if (protocol !== undefined && !SIMULATOR_PROTOCOLS.includes(protocol as SimulatorProtocol)) {
      throw new FaultSyntaxError(`match.protocol must be one of ${SIMULATOR_PROTOCOLS.join(', ')}`);
    }
    if (model !== undefined && typeof model !== 'string') throw new FaultSyntaxError('match.model must be a string');
    rule.match = { protocol: protocol as SimulatorProtocol | undefined, model: model as string | undefined };
  }
  if (times !== undefined) {
    if (typeof times !== 'number' || !Number.isInteger(times) || times < 1) throw new FaultSyntaxError('times must be a positive integer');
    rule.times = times;
  }
  return rule;
}

interface StoredRule {
  id: string;
  rule: FaultRule;
  remaining: number;
}

export interface FaultStore {
  add(rule: FaultRule): string;
  /** The first matching rule's fault, using up one of its `times`. */
  take(protocol: SimulatorProtocol, model: string): FaultSpec | undefined;
  list(): { id: string; rule: FaultRule; remaining: number | null }[];
  clear(): void;
}

export function createFaultStore(): FaultStore {
  let rules: StoredRule[] = [];
  let nextId = 1;
  return {
    add(rule) {
      const checked = validateFaultRule(rule);
      const id = `fault_${nextId++}`;
      rules.push({ id, rule: checked, remaining: checked.times ?? Number.POSITIVE_INFINITY });
      return id;
    },
    take(protocol, model) {
      if (rules.length === 0) return undefined;
      const found = rules.find(({ rule: { match } }) => (match?.protocol ?? protocol) === protocol && (match?.model ?? model) === model);
      if (!found) return undefined;
      found.remaining--;
      if (found.remaining <= 0) rules = rules.filter((stored) => stored !== found);
      return found.rule.fault;
    },
    list: () => rules.map(({ id, rule, remaining }) => ({ id, rule, remaining: Number.isFinite(remaining) ? remaining : null })),
    clear() {
      rules = [];
    },
  };
}

export type CutFaultKind = 'disconnect' | 'stall' | 'malformed' | 'error';

/** A fault that interrupts a response body after `after` stream events. */
export interface CutFault {
  kind: CutFaultKind;
  after: number;
}

/** The cut that comes first when several are given; on a tie the listed order wins. */
export function pickCutFault(fault: FaultSpec | undefined): CutFault | undefined {
  if (!fault) return undefined;
  const candidates: [CutFaultKind, number | undefined][] = [
    ['disconnect', fault.disconnect_after],
    ['stall', fault.stall_after],
    ['malformed', fault.malformed_after],
    ['error', fault.error_after],
  ];
  let picked: CutFault | undefined;
  for (const [kind, after] of candidates) {
    if (after !== undefined && (picked === undefined || after < picked.after)) picked = { kind, after };
  }
  return picked;
}
