/**
 * Rewrites the field tables of docs/api-fields.md (between `<!-- fields:NAME:start -->` and
 * `:end -->`) from the styles' field tables, which test/fields/*.test.ts hold the page to. Run after changing a
 * table: `node --import tsx scripts/render-field-tables.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { chatCompletionsFieldTable } from '../src/api/chat-completions/field-table.js';
import { geminiFieldTable } from '../src/api/gemini/field-table.js';
import { messagesFieldTable } from '../src/api/messages/field-table.js';
import { responsesFieldTable } from '../src/api/responses/field-table.js';
import { renderFieldTable, type FieldTable } from '../src/api/shared/field-table.js';

const sections: Record<string, FieldTable> = {
  'chat-completions': chatCompletionsFieldTable,
  responses: responsesFieldTable,
  messages: messagesFieldTable,
  gemini: geminiFieldTable,
};

const path = 'docs/api-fields.md';
let page = readFileSync(path, 'utf8');
for (const [name, table] of Object.entries(sections)) {
  const start = `<!-- fields:${name}:start -->`;
  const end = `<!-- fields:${name}:end -->`;
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`${path} has no ${start} … ${end} section`);
  page = `${page.slice(0, from + start.length)}\n${renderFieldTable(table)}\n${page.slice(to)}`;
}
writeFileSync(path, page);
