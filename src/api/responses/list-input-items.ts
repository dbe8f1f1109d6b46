/**
 * A stored response's input items as OpenAI's `input_items` list shows them: every item with an
 * id (the client's own, or one derived from the response id and position), messages with their
 * content as a list of parts and a status.
 */
export function toListedInputItems(responseId: string, items: unknown[]): Array<Record<string, unknown>> {
  return items.map((entry, index) => {
    const item = { ...(entry as Record<string, unknown>) };
    const type = item.type ?? (item.role === undefined ? undefined : 'message');
    if (type === 'message') {
      item.type = 'message';
      if (typeof item.content === 'string') {
        item.content = [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content, ...(item.role === 'assistant' ? { annotations: [] } : {}) }];
      }
      item.status ??= 'completed';
    }
    if (typeof item.id !== 'string') item.id = `${type === 'message' ? 'msg' : 'item'}_${responseId}_in_${index}`;
    return item;
  });
}

export interface InputItemPageQuery {
  limit?: number;
  order?: 'asc' | 'desc';
  after?: string;
  before?: string;
}

/** One page of items in OpenAI's list shape; `after`/`before` are item ids in the chosen order. */
export function pageInputItems(items: Array<Record<string, unknown>>, query: InputItemPageQuery) {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  let from = 0;
  let to = ordered.length;
  if (query.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === query.after);
    from = at === -1 ? ordered.length : at + 1;
  }
  if (query.before !== undefined) {
    const at = ordered.findIndex((item) => item.id === query.before);
    to = at === -1 ? 0 : at;
  }
  const window = ordered.slice(from, Math.max(from, to));
  const limit = query.limit ?? 20;
  const data = window.slice(0, limit);
  return {
    object: 'list' as const,
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: window.length > limit,
  };
}
