import type { ColumnType, Generated } from 'kysely';

/**
 * Table shapes as Kysely sees them. Money columns are nano-USD `bigint` on both dialects
 * (SQLite runs with safe integers, PostgreSQL parses int8 as BigInt). Booleans are integers
 * 0/1 and timestamps ISO 8601 UTC text, so one set of queries serves SQLite and PostgreSQL.
 * SQLite hands every INTEGER back as a bigint; repositories convert with `toNumber`.
 */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  ledger_entries: LedgerEntriesTable;
  ledger_references: LedgerReferencesTable;
  audit_entries: AuditEntriesTable;
  alert_settings: AlertSettingsTable;
  alert_states: AlertStatesTable;
  reservations: ReservationsTable;
  requests: RequestsTable;
  usage_rollups: UsageRollupsTable;
  /** Rollups written before the summaries existed, not yet moved into them (migration 2026-12-07-1300). */
  usage_rollups_pending: UsageRollupsTable;
  usage_summaries: UsageSummariesTable;
  response_cache: ResponseCacheTable;
  cache_savings: CacheSavingsTable;
  default_providers: DefaultProvidersTable;
  messenger_links: MessengerLinksTable;
  link_codes: LinkCodesTable;
  tasks: TasksTable;
  instances: InstancesTable;
  media_files: MediaFilesTable;
  stored_responses: StoredResponsesTable;
  users: UsersTable;
  user_identities: UserIdentitiesTable;
  memberships: MembershipsTable;
  member_invites: MemberInvitesTable;
  sessions: SessionsTable;
  email_sign_in_tokens: EmailSignInTokensTable;
  email_sign_in_senders: EmailSignInSendersTable;
  oidc_states: OidcStatesTable;
  redemption_batches: RedemptionBatchesTable;
  redemption_codes: RedemptionCodesTable;
  redemption_guards: RedemptionGuardsTable;
  redemption_failures: RedemptionFailuresTable;
  payment_customers: PaymentCustomersTable;
  auto_top_ups: AutoTopUpsTable;
  files: FilesTable;
  batches: BatchesTable;
  batch_lines: BatchLinesTable;
}

/** A person who signs in to the page (contract §7). `email` is stored in lower case. */
export interface UsersTable {
  id: string;
  name: string;
  email: string | null;
  telegram_id: string | null;
  created_at: string;
}

/** A sign-in method's subject for a user: `method` 'oidc', `issuer` the provider's issuer URL, `subject` its `sub`. */
export interface UserIdentitiesTable {
  method: string;
  issuer: string;
  subject: string;
  user_id: string;
  created_at: string;
}

/** A user's role in an account: owner, admin, member or viewer. */
/** An invite link (contract §8); only the token's SHA-256 is stored. */
export interface MemberInvitesTable {
  id: string;
  account_id: string;
  token_hash: string;
  email: string | null;
  role: string;
  /** The audit actor's id who made it: a user id or a key id. */
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  used_by_user_id: string | null;
  revoked_at: string | null;
}

export interface MembershipsTable {
  user_id: string;
  account_id: string;
  role: string;
  created_at: string;
  /** The member's own limit (issue 49), nano-USD; null: none. Its keys' spending counts toward it. */
  spend_limit: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  limit_reset: ColumnType<string | null, string | null | undefined, string | null>;
  period_start: ColumnType<string | null, string | null | undefined, string | null>;
  /** What the member's keys were charged in the period (lifetime without a reset); kept by a trigger on `api_keys`. */
  period_usage: ColumnType<bigint, bigint | undefined, bigint>;
  /** What the member's keys hold in reservations and leases; kept by the same trigger. */
  reserved: ColumnType<bigint, bigint | undefined, bigint>;
}

/** A signed-in browser. Only the SHA-256 (hex) of the cookie's token is stored. */
export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  created_at: string;
  last_used_at: string;
  user_agent: string | null;
  ip: string | null;
}

/** A magic link: SHA-256 (hex) of its token, single use (`used` 0/1) until `expires_at`. */
export interface EmailSignInTokensTable {
  token_hash: string;
  email: string;
  return_to: string;
  created_at: string;
  expires_at: string;
  used: ColumnType<Int, Int | undefined, Int>;
}

/** One row per address asking for magic links: the lock the 5-per-hour cap queues on. */
export interface EmailSignInSendersTable {
  email: string;
  last_requested_at: string;
}

/** An OpenID Connect authorization request in flight; deleted when its callback uses it. */
export interface OidcStatesTable {
  state_hash: string;
  provider_id: string;
  nonce: string;
  code_verifier: string;
  return_to: string;
  expires_at: string;
}

export interface InstancesTable {
  id: string;
  started_at: string;
  heartbeat_at: string;
}

type Int = number | bigint;

export interface AccountsTable {
  id: string;
  name: string;
  created_at: string;
  total_credits: bigint;
  total_usage: bigint;
  /** Sum of open reservations; spendable balance is credits − usage − reserved. */
  reserved: bigint;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  label: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  hash: string;
  management: Int;
  created_at: string;
  revoked_at: string | null;
  spend_limit: bigint | null;
  usage: bigint;
  reserved: bigint;
  /** nano-USD per 1M tokens. */
  max_price_prompt: bigint | null;
  max_price_completion: bigint | null;
  /** JSON: {"<model id>": {"prompt": "<nano per 1M>", "completion": "<nano per 1M>"}} */
  model_max_prices: string;
  requests_per_minute: Int | null;
  /** 'daily' | 'weekly' | 'monthly', or null: the limit is a lifetime total (issue 49). */
  limit_reset: string | null;
  /** Start of the period `period_usage` counts (ISO 8601); null without a reset. */
  period_start: string | null;
  /** Charged since `period_start`; without a reset, the same as `usage` (migration 2026-12-07-1940). */
  period_usage: ColumnType<bigint, bigint | undefined, bigint>;
  /** The signed-in user who made the key; null for a management key's, the admin API's or the CLI's. */
  created_by_user_id: string | null;
  /** 1: the key caches every request unless it says `x-switchyard-cache: off` (migration 2026-12-07-2100). */
  cache: ColumnType<Int | null, Int | null | undefined, Int | null>;
}

export interface LedgerEntriesTable {
  id: string;
  account_id: string;
  key_id: string | null;
  /**
   * charge | uncollected | credit (an operator's grant) | top_up | auto_top_up | refund | dispute
   * | dispute_won | redemption | signup_bonus (`billing/db/post-movement.ts`)
   */
  kind: string;
  amount: bigint;
  request_id: string | null;
  note: string | null;
  created_at: string;
  /** The payment provider's receipt of a top-up (contract §7). */
  receipt_url: ColumnType<string | null, string | null | undefined, string | null>;
}

/** One row per external money reference, written with its ledger entry: the exactly-once guard. */
export interface LedgerReferencesTable {
  reference: string;
  ledger_entry_id: string;
  account_id: string;
  created_at: string;
}

export interface ReservationsTable {
  id: string;
  account_id: string;
  key_id: string | null;
  request_id: string;
  amount: bigint;
  created_at: string;
  expires_at: string;
  /** The instance that holds it; its reservations are released when its heartbeat stops. */
  instance_id: string | null;
}

export interface RequestsTable {
  id: string;
  account_id: string;
  key_id: string | null;
  model: string;
  provider: string | null;
  endpoint: string;
  streamed: Int;
  status: string;
  error_code: string | null;
  latency_ms: Int | null;
  prompt_tokens: Int;
  completion_tokens: Int;
  cached_tokens: Int;
  reasoning_tokens: Int;
  cost: bigint;
  estimated: Int;
  created_at: string;
  /** Nullable, added by a later migration (see RequestRecord.endUser). */
  end_user: string | null;
  /** Nullable JSON array of field names, added by a later migration (see RequestRecord.omitted). */
  omitted: string | null;
  /** Nullable, added by a later migration (see RequestRecord.webSearchRequests). */
  web_search_requests: Int | null;
  tool_cost: bigint | null;
  /** Nullable, added by a later migration (see RequestRecord.errorMessage). */
  error_message: string | null;
  /** The batch whose line this request was (issue 51); null for live requests. */
  batch_id: string | null;
  /** 1 when the response cache answered (migration 2026-12-07-2100). */
  cache_hit: ColumnType<Int, Int | undefined, Int>;
}

/** The response cache's entries when there is no Redis (`src/cache/db/`). */
export interface ResponseCacheTable {
  key: string;
  account_id: string;
  /** The stored answer (`CachedAnswer`) as JSON. */
  entry: string;
  /** Epoch milliseconds. */
  stored_at: Int;
  expires_at: Int;
}

/** What the response cache saved, per account, day and key ('' for none) (`src/cache/db/`). */
export interface CacheSavingsTable {
  account_id: string;
  day: string;
  key_id: string;
  hits: bigint;
  /** nano-USD. */
  saved: bigint;
}

export interface UsageRollupsTable {
  account_id: string;
  day: string;
  key_id: string;
  model: string;
  provider: string;
  requests: Int;
  prompt_tokens: bigint;
  completion_tokens: bigint;
  cost: bigint;
}

/**
 * The values of `usage_summaries.dimension` (what each sums: `billing/db/summarize-usage.ts`),
 * named with the table so that a migration that fills it needs nothing of billing.
 */
export type UsageDimension = 'day' | 'model:day' | 'model:month' | 'provider:day' | 'provider:month' | 'key:day' | 'key:week' | 'key:month';

/** The report's summaries beside the rollups (`billing/db/summarize-usage.ts`). */
export interface UsageSummariesTable {
  account_id: string;
  dimension: string;
  period: string;
  value: string;
  requests: Int;
  prompt_tokens: bigint;
  completion_tokens: bigint;
  cost: bigint;
}

export interface DefaultProvidersTable {
  account_id: string;
  model: string;
  provider: string;
  updated_at: string;
}

export interface MessengerLinksTable {
  account_id: string;
  /** telegram | admin */
  messenger: string;
  external_id: string | null;
  linked_at: string;
}

/** One pending messenger link code per account; a new code replaces the old one. */
export interface LinkCodesTable {
  account_id: string;
  /** SHA-256 of the code, hex. The code itself is never stored. */
  code_hash: string;
  created_at: string;
  expires_at: string;
}

export interface TasksTable {
  id: string;
  account_id: string;
  key_id: string | null;
  kind: string;
  model: string;
  provider: string;
  status: string;
  progress: Int;
  input: string;
  provider_job_id: string | null;
  reservation_id: string | null;
  reserved: bigint;
  cost: bigint | null;
  error: string | null;
  result: string | null;
  idempotency_key: string | null;
  attempts: Int;
  next_poll_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  row_version: Generated<Int>;
  /** The request that created the task (its request log row); null on rows from before 0005. */
  request_id: string | null;
  /** Past this the engine fails the task and releases its reservation. */
  expires_at: string | null;
}

/** Images served by the gateway (`response_format: "url"`), per account, until `expires_at`. */
export interface MediaFilesTable {
  id: string;
  account_id: string;
  request_id: string;
  content_type: string;
  size: Int;
  data: Buffer;
  created_at: string;
  expires_at: string;
}

/** A stored Response (see the 2026-11-25-1930 migration): JSON text of its input items and Response object. */
export interface StoredResponsesTable {
  id: string;
  account_id: string;
  api_key_id: string;
  model: string;
  input_items: string;
  response: string;
  size: Int;
  /** 1 for a response nobody paid for (a WebSocket warm-up): bounded per account. */
  free: Generated<Int>;
  created_at: string;
  expires_at: string;
}

/** A batch of redemption codes as the operator made it (migration 2026-12-07-1930). */
export interface RedemptionBatchesTable {
  id: string;
  /** Nano-USD each code credits. */
  amount: bigint;
  count: Int;
  note: string | null;
  expires_at: string | null;
  created_at: string;
}

/** One code, known only by the SHA-256 (hex) of its normalized text. */
export interface RedemptionCodesTable {
  hash: string;
  batch_id: string;
  redeemed_at: string | null;
  redeemed_account_id: string | null;
}

/** One row per account that has tried a code: the lock that runs its attempts one at a time. */
export interface RedemptionGuardsTable {
  account_id: string;
  last_attempt_at: string;
}

/** Wrong attempts of the last ten minutes, at most five per account. */
export interface RedemptionFailuresTable {
  id: string;
  account_id: string;
  at: string;
}

/** An account's customer at a payment provider and its saved payment method (migration 2026-12-07-1920). */
export interface PaymentCustomersTable {
  account_id: string;
  provider: string;
  customer_id: string;
  payment_method_id: string | null;
  created_at: string;
}

/** An account's auto top-up: settings, the payment in flight, the last failure (`payments/db/auto-top-ups.ts`). */
export interface AutoTopUpsTable {
  account_id: string;
  enabled: Int;
  /** nano-USD */
  threshold: bigint;
  amount: bigint;
  /** 1 once the balance has been seen at or above the threshold since the last payment. */
  armed: Int;
  /** The claim of the payment in flight; also its idempotency key. */
  in_flight_id: string | null;
  in_flight_since: string | null;
  /** The provider's payment id once it was created. */
  payment_id: string | null;
  last_failure: string | null;
  last_failure_at: string | null;
  updated_at: string;
}

/** One change of keys, limits, members, alerts, sessions or money (contract §8; `audit/`). */
export interface AuditEntriesTable {
  id: string;
  account_id: string;
  at: string;
  /** user | key | admin */
  actor_type: string;
  actor_id: string;
  action: string;
  target: string | null;
  ip: string | null;
  /** JSON object */
  details: string;
}

export interface AlertSettingsTable {
  account_id: string;
  /** nano-USD; null: no low-balance alert */
  low_balance_threshold: bigint | null;
  /** JSON array of integers 1–100 */
  key_limit_percents: string;
  email: Int;
  telegram: Int;
  webhook_url: string | null;
  webhook_secret: string | null;
  updated_at: string;
}

export interface AlertStatesTable {
  account_id: string;
  /** low_balance | key_limit | member_limit */
  type: string;
  /** a key id (key_limit), a user id (member_limit), '' for the account */
  subject: string;
  /** the percent crossed (key and member limits); 0 for the low balance */
  level: Int;
  /** the limit's period ('' for a lifetime limit) */
  period: string;
  alert_id: string;
  fired_at: string;
}

/** An uploaded file (`POST /v1/files`): its bytes are on disk under `storage_key` (batches/file-storage.ts). */
export interface FilesTable {
  id: string;
  account_id: string;
  purpose: string;
  filename: string;
  bytes: number | bigint;
  line_count: number | bigint;
  storage_key: string;
  created_at: string;
}

/** A batch (`POST /v1/batches`): OpenAI's batch object, its live counts and its timestamps. */
export interface BatchesTable {
  id: string;
  account_id: string;
  key_id: string;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  /** `batch` (OpenAI's `/v1/batches`) or `message_batch` (Anthropic's `/v1/messages/batches`): each list walks `(account_id, kind, id)`. */
  kind: Generated<string>;
  status: string;
  /** JSON object of strings, or null. */
  metadata: string | null;
  /** JSON array of OpenAI's batch errors (`{code, message, param, line}`), or null. */
  errors: string | null;
  total: Generated<number | bigint>;
  completed: Generated<number | bigint>;
  failed: Generated<number | bigint>;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: string;
  expires_at: string;
  in_progress_at: string | null;
  finalizing_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
  expired_at: string | null;
  cancelling_at: string | null;
  cancelled_at: string | null;
}

/** One line of a batch's input file: its request body, where it stands, and its answer once it has one. */
export interface BatchLinesTable {
  batch_id: string;
  line_no: number | bigint;
  custom_id: string;
  model: string;
  /** The line's `body`, JSON. */
  body: string;
  /** pending | running | completed | failed | cancelled | expired */
  status: string;
  /** The request id of the line's run (its request log row), set when it starts. */
  request_id: string | null;
  status_code: number | bigint | null;
  /** The answer's body, JSON (completed lines). */
  response: string | null;
  /** `{code, message}`, JSON (failed lines). */
  error: string | null;
  /** Where the line runs: `engine` or `anthropic` (Message Batches), chosen at validation. */
  executor: Generated<string>;
  /** The provider's batch the line went into (`pricing.batch_discount`); null when the engine runs it. */
  provider_batch_id: string | null;
  /** The line's durable reservation while it is in a provider's batch. */
  reservation_id: string | null;
}
