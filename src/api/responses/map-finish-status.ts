import type { FinishReason } from '../../core/finish-reason.js';
import type { IncompleteDetails, ResponseErrorWire, ResponseStatus } from './responses-wire.js';

export interface FinishStatus {
  status: ResponseStatus;
  incompleteDetails: IncompleteDetails | null;
  error: ResponseErrorWire | null;
}

/** A canonical finish reason → the Response's `status`, `incomplete_details` and `error`. */
export function mapFinishStatus(reason: FinishReason): FinishStatus {
  switch (reason) {
    case 'length':
      return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' }, error: null };
    case 'content_filter':
      return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' }, error: null };
    case 'error':
      return {
        status: 'failed',
        incompleteDetails: null,
        error: { code: 'upstream_error', message: 'The provider ended the generation with an error.' },
      };
    default:
      return { status: 'completed', incompleteDetails: null, error: null };
  }
}
