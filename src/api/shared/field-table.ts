/**
 * The declarative field tables of the inbound text styles (contract: every field an official SDK
 * sends has a stated handling per provider protocol). Each style keeps one `FieldTable` beside its
 * decoder; the decoder refuses any top-level field without a row, tests hold each table against
 * the SDK's request types, and the field reference (docs/api-fields.md) is rendered from the tables.
 */
import { textProviderApis, type TextProviderApi } from '../../core/protocol-descriptor.js';

/** The protocols a text request can reach: one column per protocol of the descriptor that serves text. */
export type WireProtocol = TextProviderApi;

export const wireProtocols: readonly WireProtocol[] = textProviderApis;

/**
 * How one field reaches one provider protocol:
 * - `native`: forwarded as the provider defines it;
 * - `translated`: mapped to the provider's own equivalent;
 * - `emulated`: the gateway does it itself (the provider never sees it);
 * - `hint`: advisory by definition, honoured where the provider has it, harmless where not;
 * - `refused`: a hard requirement the protocol cannot meet, 400 with `note` as the reason.
 */
export type DispositionKind = 'native' | 'translated' | 'emulated' | 'hint' | 'refused';

export interface Disposition {
  kind: DispositionKind;
  /** What happens, in a few words (rendered in docs/api-fields.md; the reason for `refused`). */
  note?: string;
}

export interface FieldRow {
  /** Top-level field name, or a dotted path for a field inside an object (`thinking.display`). */
  field: string;
  handling: Record<WireProtocol, Disposition>;
}

export type FieldTable = readonly FieldRow[];

/**
 * The notes of the preference rule (contract §4: preferences are not requirements), the same in
 * every style's table: what happens where the endpoint cannot honour what the request prefers.
 */
export const preferenceNotes = {
  /** Reasoning settings. */
  unreasoned: 'a preference: endpoints that reason go first; where the model does not reason, left out and named in x-switchyard-omitted',
  /** An offered web search. */
  unsearched: 'offered: where the endpoint has no search, run by the gateway when hosted_tools.web_search is set, else left out and named in x-switchyard-omitted',
  /** A hosted tool no provider protocol runs here. */
  unserved: 'offered (tool_choice auto or none): no provider runs it here, so the request is served without it, named in x-switchyard-omitted; forced by tool_choice: refused',
} as const;

/**
 * A row's handling, keyed by protocol name. The record must name every text protocol of the
 * descriptor, so a protocol added there makes each row that states handlings one by one a type
 * error until its column is written, instead of an `undefined` cell at run time.
 */
export function perProtocol(handling: Record<WireProtocol, Disposition>): Record<WireProtocol, Disposition> {
  return handling;
}

/** The same handling on every protocol. */
export function onEveryProtocol(kind: DispositionKind, note?: string): Record<WireProtocol, Disposition> {
  const disposition: Disposition = note === undefined ? { kind } : { kind, note };
  return Object.fromEntries(wireProtocols.map((protocol) => [protocol, disposition])) as Record<WireProtocol, Disposition>;
}

/** The top-level field names of a table, for the decoder's "is this field in the style" check. */
export function topLevelFields(table: FieldTable): Set<string> {
  return new Set(table.filter((row) => !row.field.includes('.')).map((row) => row.field));
}

/** Renders a table as Markdown, one row per field and one column per protocol. */
export function renderFieldTable(table: FieldTable): string {
  const cell = (disposition: Disposition) =>
    (disposition.note ? `${disposition.kind}: ${disposition.note}` : disposition.kind).replaceAll('|', '\\|');
  const lines = [
    `| field | ${wireProtocols.join(' | ')} |`,
    `|---|${wireProtocols.map(() => '---').join('|')}|`,
    ...table.map((row) => `| \`${row.field}\` | ${wireProtocols.map((protocol) => cell(row.handling[protocol])).join(' | ')} |`),
  ];
  return lines.join('\n');
}

/**
 * JSON mode without a schema on Anthropic, which has none (`providers/anthropic/emulate-json-mode.ts`);
 * the rule the Chat `response_format` and Responses `text.format` rows state.
 */
export const jsonModeOnAnthropic =
  'a tool whose input is any object, forced (`tool_choice` tool; `any` beside the client’s own tools; only offered when thinking is on, which Anthropic does not force), its input returned as the message text and streamed as text, finish `stop`';
