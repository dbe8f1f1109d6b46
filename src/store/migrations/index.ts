import type { Migration } from 'kysely';
import * as initial from './2026-11-21-0001-initial.js';
import * as linkCodes from './2026-11-21-0002-link-codes.js';
import * as requestLog from './2026-11-21-0003-request-log.js';
import * as reservationOwners from './2026-11-21-0004-reservation-owners.js';
import * as taskRequests from './2026-11-21-0005-task-requests.js';
import * as mediaFiles from './2026-11-21-0006-media-files.js';
import * as reserveFunction from './2026-11-22-2310-reserve-function.js';
import * as reserveManyFunction from './2026-11-24-2320-reserve-many-function.js';
import * as requestEndUser from './2026-11-24-2330-request-end-user.js';
import * as dropReservationIndexes from './2026-11-25-0500-drop-reservation-indexes.js';
import * as orderedReserveMany from './2026-11-25-1900-ordered-reserve-many.js';
import * as requestOmitted from './2026-11-25-1900-request-omitted.js';
import * as storedResponses from './2026-11-25-1930-stored-responses.js';
import * as requestToolCost from './2026-11-25-2000-request-tool-cost.js';
import * as ledgerUncollectedIndex from './2026-11-26-0100-ledger-uncollected-index.js';
import * as requestStatusPartialIndex from './2026-11-26-1500-request-status-partial-index.js';
import * as usageSummaries from './2026-12-07-1300-usage-summaries.js';
import * as accountSearchIndex from './2026-12-07-1310-account-search-index.js';
import * as storedResponseFree from './2026-12-07-1320-stored-response-free.js';
import * as keyChangeSignal from './2026-12-07-1330-key-change-signal.js';
import * as requestErrorMessage from './2026-12-07-1340-request-error-message.js';
import * as ledgerReferences from './2026-12-07-1900-ledger-references.js';
import * as payments from './2026-12-07-1920-payments.js';
import * as people from './2026-12-07-1910-people.js';
import * as redemptionCodes from './2026-12-07-1930-redemption-codes.js';
import * as keyLimitReset from './2026-12-07-1940-key-limit-reset.js';
import * as auditLog from './2026-12-07-1950-audit-log.js';
import * as members from './2026-12-07-2000-members.js';
import * as alerts from './2026-12-07-2010-alerts.js';
import * as memberLimits from './2026-12-07-2020-member-limits.js';
import * as batches from './2026-12-07-2100-batches.js';
import * as providerBatchLines from './2026-12-08-0040-provider-batch-lines.js';
import * as batchKind from './2026-12-08-0300-batch-kind.js';
import * as responseCache from './2026-12-07-2100-response-cache.js';
import type { OnlineIndex } from './online-index.js';

/** Every migration, by name; names sort in the order they apply. Static imports keep builds self-contained. */
export const migrations: Record<string, Migration> = {
  '2026-11-21-0001-initial': initial,
  '2026-11-21-0002-link-codes': linkCodes,
  '2026-11-21-0003-request-log': requestLog,
  '2026-11-21-0004-reservation-owners': reservationOwners,
  '2026-11-21-0005-task-requests': taskRequests,
  '2026-11-21-0006-media-files': mediaFiles,
  '2026-11-22-2310-reserve-function': reserveFunction,
  '2026-11-24-2320-reserve-many-function': reserveManyFunction,
  '2026-11-24-2330-request-end-user': requestEndUser,
  '2026-11-25-0500-drop-reservation-indexes': dropReservationIndexes,
  '2026-11-25-1900-ordered-reserve-many': orderedReserveMany,
  '2026-11-25-1900-request-omitted': requestOmitted,
  '2026-11-25-1930-stored-responses': storedResponses,
  '2026-11-25-2000-request-tool-cost': requestToolCost,
  '2026-11-26-0100-ledger-uncollected-index': ledgerUncollectedIndex,
  '2026-11-26-1500-request-status-partial-index': requestStatusPartialIndex,
  '2026-12-07-1300-usage-summaries': usageSummaries,
  '2026-12-07-1310-account-search-index': accountSearchIndex,
  '2026-12-07-1320-stored-response-free': storedResponseFree,
  '2026-12-07-1330-key-change-signal': keyChangeSignal,
  '2026-12-07-1340-request-error-message': requestErrorMessage,
  '2026-12-07-1900-ledger-references': ledgerReferences,
  '2026-12-07-1920-payments': payments,
  '2026-12-07-1910-people': people,
  '2026-12-07-1930-redemption-codes': redemptionCodes,
  '2026-12-07-1940-key-limit-reset': keyLimitReset,
  '2026-12-07-1950-audit-log': auditLog,
  '2026-12-07-2000-members': members,
  '2026-12-07-2010-alerts': alerts,
  '2026-12-07-2020-member-limits': memberLimits,
  '2026-12-07-2100-batches': batches,
  '2026-12-07-2100-response-cache': responseCache,
  '2026-12-08-0040-provider-batch-lines': providerBatchLines,
  '2026-12-08-0300-batch-kind': batchKind,
};

/** PostgreSQL indexes the migrations above build CONCURRENTLY once the migrator has committed (`online-index.ts`). */
export const onlineIndexes: readonly OnlineIndex[] = [...accountSearchIndex.onlineIndexes, ...ledgerReferences.onlineIndexes];
