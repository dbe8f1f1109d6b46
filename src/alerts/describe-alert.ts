import type { AlertPayload } from './alert-types.js';

/** The alert in words, for mail and Telegram: a subject line and a short text. */
export function describeAlert(alert: AlertPayload, serviceName: string): { subject: string; text: string } {
  const data = alert.data as Record<string, string | number | null | undefined>;
  const usd = (value: unknown) => `$${Number(value).toFixed(2)}`;
  switch (alert.type) {
    case 'low_balance':
      return { subject: `${serviceName}: low balance`, text: `The balance of account ${alert.account_id} is ${usd(data.balance)}, below the alert threshold of ${usd(data.threshold)}.` };
    case 'key_limit':
      return {
        subject: `${serviceName}: key "${data.key_name}" at ${data.percent}% of its limit`,
        text: `Key "${data.key_name}" (${data.key_id}) has spent ${usd(data.usage)} of its ${usd(data.limit)} limit (${data.percent}% reached).`,
      };
    case 'member_limit':
      return {
        subject: `${serviceName}: member "${data.name}" at ${data.percent}% of its limit`,
        text: `Member "${data.name}" (${data.user_id}) has spent ${usd(data.usage)} of its ${usd(data.limit)} limit (${data.percent}% reached) through its keys.`,
      };
    case 'auto_top_up_failed':
      return { subject: `${serviceName}: auto top-up failed`, text: `An automatic top-up of account ${alert.account_id} failed (${data.reason}); auto top-up is now off. Top up by hand and turn it on again.` };
    case 'test':
      return { subject: `${serviceName}: test alert`, text: `This is a test alert for account ${alert.account_id}. Alerts reach you here.` };
  }
}
