/**
 * One page of an OpenAI list (`/v1/files`, `/v1/batches`) from `limit + 1` rows read: the first
 * `limit` encoded, `has_more` from the one extra row.
 */
export function encodeListPage<Row extends { id: string }>(rows: readonly Row[], limit: number, encode: (row: Row) => Record<string, unknown>) {
  const page = rows.slice(0, limit);
  return {
    object: 'list' as const,
    data: page.map(encode),
    first_id: page.length > 0 ? page[0].id : null,
    last_id: page.length > 0 ? page[page.length - 1].id : null,
    has_more: rows.length > limit,
  };
}
