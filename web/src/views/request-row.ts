/** A request log row as GET /v1/requests gives it. */
export interface RequestRow {
  id: string;
  created_at: string;
  model: string;
  provider: string | null;
  endpoint: string;
  streamed: boolean;
  status: string;
  latency_ms: number | null;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  cost: number;
  key_id: string | null;
  key_name: string | null;
  end_user: string | null;
  /** Why it was refused or failed: the code and message the client got. */
  error: { code: string; message: string | null } | null;
  omitted: string[];
}

/** The log's filters, as the URL and `GET /v1/requests` take them ('' = any). */
export interface RequestFilters {
  model: string;
  provider: string;
  status: string;
  key_id: string;
  from: string;
  to: string;
}

export const filterNames = ['model', 'provider', 'status', 'key_id', 'from', 'to'] as const;

export function filtersFrom(params: Record<string, string>): RequestFilters {
  return Object.fromEntries(filterNames.map((name) => [name, params[name] ?? ''])) as unknown as RequestFilters;
}

/** Whether the API would list `row` under `filters` (days are UTC, as the API reads them). */
export function matchesFilters(row: RequestRow, filters: RequestFilters): boolean {
  const day = row.created_at.slice(0, 10);
  return (
    (filters.model === '' || row.model === filters.model) &&
    (filters.provider === '' || row.provider === filters.provider) &&
    (filters.status === '' || row.status === filters.status) &&
    (filters.key_id === '' || row.key_id === filters.key_id) &&
    (filters.from === '' || day >= filters.from) &&
    (filters.to === '' || day <= filters.to)
  );
}
