import { performance } from 'node:perf_hooks';
import type { EndpointPricing } from '../config/types.js';
import type { Usage } from '../core/usage.js';
import { withFields } from '../core/with-fields.js';
import type { RequestLogErrorCode } from '../errors/request-log-codes.js';
import type { Candidate } from '../catalog/candidate.js';
import type { Ledger, Reservation, ReserveRequest } from './ledger.js';
import { priceTextUsage } from './pricing.js';
import type { RequestRecord } from './request-record.js';
import type { Settlement, SettlementStatus } from './settlement.js';

/**
 * One call's report to the breaker: exactly one verdict (`succeeded` or `failed`), or `end()`
 * without one when the call proved nothing about the endpoint (the client left, our own refusal).
 * Every method after the first is a no-op, so `end()` belongs in a `finally`: a half-open probe
 * never stays taken, and the endpoint can never stay open for good.
 */
export interface HealthAttempt {
  succeeded(latencyMs: number, tokensPerSecond?: number): void;
  failed(): void;
  end(): void;
}

/** Where a paid call's request log row comes from (`startRequestRecord`'s recorder). */
export interface SettlementRecorder {
  /** The row to commit together with the charge; undefined when the request already has its row. */
  settlementRow(candidate: Candidate, settlement: Settlement): RequestRecord | undefined;
}

/** The spans of a traced request (`telemetry/request-trace.ts`), as far as a paid call reports to them. */
export interface SettlementTrace {
  settle<T>(settlement: Settlement, run: () => Promise<T>): Promise<T>;
  attemptFailed(error: unknown): void;
}

/** What a paid call holds besides its reservation. */
export interface PaidCallParts {
  ledger: Pick<Ledger, 'settle' | 'release'>;
  candidate: Candidate;
  /** The request's row writer; absent when no row goes with the charge (a task's row is the engine's). */
  record?: SettlementRecorder;
  trace?: SettlementTrace;
  /** Takes over the candidate loop's breaker report (`CandidateAttempt.keepHealth`), for a call that outlives its attempt (a stream). */
  health?: () => HealthAttempt;
  /** What the endpoint could not honour; written on the row that commits with the charge. */
  omitted?: readonly string[];
  /** Input images, priced with the prompt by the text rule. */
  images?: number;
  /** The price of another model that served part of the call (see `Usage.delegated`). */
  pricingOf?: (providerModel: string) => EndpointPricing | undefined;
}

/** What `settle` may be told beside the usage and status. */
export interface SettleDetail {
  errorCode?: RequestLogErrorCode;
  /**
   * The price when the caller's own rule made it (n images, characters of speech, the hosted
   * loop's turns each priced apart); otherwise the usage is priced by the text rule.
   */
  cost?: bigint;
  /** The response cache answered (`cache/serve-cached-answer.ts`): the row says `cache_hit`. */
  cacheHit?: boolean;
}

/**
 * One paid call: a candidate, its reservation, its breaker report, its trace and its request log
 * row. Ends exactly once: `settle` (price, charge with the row, release the rest), `abort`
 * (release everything; nothing was delivered) or `handOff` (a durable task took the
 * reservation and settles it when it ends). Every paid endpoint goes through this object, so
 * the order of those steps is written once.
 */
export class PaidCall {
  /** When the provider call started: the breaker's latency and throughput are measured from here. */
  readonly startedAt = performance.now();
  private ended = false;
  /** Released or handed off: the reservation is no longer this call's to give back. */
  private given = false;

  constructor(
    readonly reservation: Reservation,
    private readonly parts: PaidCallParts,
  ) {}

  /** Reserves `amount` for `candidate` (atomic; 402 when the funds do not cover it) and opens the call. */
  static async reserve(ledger: Pick<Ledger, 'reserve' | 'settle' | 'release'>, request: ReserveRequest, parts: Omit<PaidCallParts, 'ledger'>): Promise<PaidCall> {
    return new PaidCall(await ledger.reserve(request), withFields(parts, { ledger }));
  }

  get candidate(): Candidate {
    return this.parts.candidate;
  }

  /** True once settled, aborted or handed off. */
  get settled(): boolean {
    return this.ended;
  }

  /** The call's breaker report, taken over from the candidate loop; once, by whoever ends the call later. */
  takeHealth(): HealthAttempt {
    if (this.parts.health === undefined) throw new Error('this paid call has no breaker report to take over');
    return this.parts.health();
  }

  /** The text rule's price of `usage` on this endpoint. */
  price(usage: Usage): bigint {
    return priceTextUsage(this.parts.candidate.endpoint.pricing, usage, this.parts.images ?? 0, this.parts.pricingOf);
  }

  /**
   * Prices the usage (or takes the given cost), charges it together with the request log row,
   * and releases the rest of the reservation. Answers what was charged. Not `async`: the json
   * path awaits the ledger's own promise, without another tick.
   */
  settle(usage: Usage, status: SettlementStatus, detail?: SettleDetail): Promise<bigint> {
    this.ended = true;
    const { parts } = this;
    const cost = detail?.cost ?? this.price(usage);
    const settlement: Settlement = { usage, cost, status, errorCode: detail?.errorCode, ...(detail?.cacheHit === true && { cacheHit: true }) };
    const omitted = parts.omitted;
    const row = parts.record?.settlementRow(parts.candidate, omitted !== undefined && omitted.length > 0 ? withFields(settlement, { omitted }) : settlement);
    if (parts.trace === undefined) return parts.ledger.settle(this.reservation, cost, row);
    return parts.trace.settle(settlement, () => parts.ledger.settle(this.reservation, cost, row));
  }

  /**
   * The call failed before anything was charged (a settlement that threw included): the
   * attempt's span fails and the whole reservation goes back. Once; never after a hand-off.
   */
  abort(error: unknown): Promise<void> {
    if (this.given) return Promise.resolve();
    this.ended = true;
    this.given = true;
    this.parts.trace?.attemptFailed(error);
    return this.parts.ledger.release(this.reservation);
  }

  /** A durable task took the reservation (it settles it once when it ends): this call neither settles nor releases. */
  handOff(): Reservation {
    this.ended = true;
    this.given = true;
    return this.reservation;
  }
}
