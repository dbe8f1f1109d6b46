import { describe, expect, it } from 'vitest';
import { onEveryProtocol, renderFieldTable, topLevelFields, type FieldTable } from './field-table.js';

const table: FieldTable = [
  { field: 'model', handling: onEveryProtocol('translated', 'catalog id → provider model name') },
  { field: 'thinking', handling: { openai: { kind: 'translated', note: 'reasoning_effort' }, anthropic: { kind: 'native' }, gemini: { kind: 'translated', note: 'thinkingConfig' }, bedrock: { kind: 'translated', note: 'thinking' } } },
  { field: 'thinking.display', handling: onEveryProtocol('hint') },
  { field: 'n', handling: { openai: { kind: 'native' }, anthropic: { kind: 'refused', note: 'one choice | at most' }, gemini: { kind: 'refused', note: 'one choice' }, bedrock: { kind: 'refused', note: 'one choice' } } },
];

describe('field tables', () => {
  it('lists only top-level fields as accepted names', () => {
    expect([...topLevelFields(table)]).toEqual(['model', 'thinking', 'n']);
  });

  it('renders one Markdown row per field with each protocol in a column, escaping pipes', () => {
    const lines = renderFieldTable(table).split('\n');
    expect(lines[0]).toBe('| field | openai | anthropic | gemini | bedrock |');
    expect(lines).toHaveLength(2 + table.length);
    expect(lines[3]).toBe('| `thinking` | translated: reasoning_effort | native | translated: thinkingConfig | translated: thinking |');
    expect(lines[5]).toBe('| `n` | native | refused: one choice \\| at most | refused: one choice | refused: one choice |');
  });
});
