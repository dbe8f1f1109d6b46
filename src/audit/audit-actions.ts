/**
 * The audit log's vocabulary (contract §8; docs/api.md "Audit log" lists the same): a family,
 * a dot, a verb. `GET /v1/audit?action=key` matches a family. A new change that writes an entry
 * adds its action here, and `test/audit/audit-walk.test.ts` walks every action listed.
 */
export const auditActions = {
  'key.create': 'a key was made (target: the key)',
  'key.limit': "a key's limit, price caps or rate were changed (target: the key; details: the fields sent)",
  'key.revoke': 'a key was revoked (target: the key)',
  'session.sign_in': 'a member signed in (target: the session; details.method: oidc, email or telegram)',
  'session.sign_out': 'a member signed out (target: the session)',
  'session.end': 'a member ended one of their sessions (target: the session)',
  'money.top_up': 'a Checkout top-up was credited (target: the ledger entry)',
  'money.auto_top_up': 'an auto top-up was credited (target: the ledger entry)',
  'money.refund': 'a refund was debited (target: the ledger entry)',
  'money.dispute': 'a dispute was debited (target: the ledger entry)',
  'money.dispute_won': 'a won dispute was credited back (target: the ledger entry)',
  'money.redemption': 'a redemption code was credited (target: the ledger entry; details.batch_id, never the code)',
  'money.grant': "the operator's credit, or an account's opening credit (target: the ledger entry)",
  'money.signup_bonus': 'the sign-up bonus was credited (target: the ledger entry)',
  'money.auto_top_up_settings': 'auto top-up was turned on or off or its threshold or amount changed',
  'member.invite': 'a member was invited (target: the invite)',
  'member.invite_revoke': 'a pending invite was revoked (target: the invite)',
  'member.join': 'a person joined the account, by an invite or by the operator (target: the user)',
  'member.role': "a member's role was changed (target: the user)",
  'member.limit': "a member's spending limit or its reset period was set or cleared (target: the user)",
  'member.remove': 'a member was removed or left (target: the user; their keys revoked with it)',
  'alerts.update': 'the alert settings were changed (details: never the webhook secret)',
  'provider.default': "the account's default provider for a model was set or cleared (target: the model)",
} as const;

export type AuditAction = keyof typeof auditActions;
