import { linkCodeTtlMs } from './link-codes.js';

const ttlMinutes = Math.round(linkCodeTtlMs / 60_000);

/** What the bot says. Plain text (no parse_mode), so nothing needs escaping. */
export const botReplies = {
  welcome:
    'Hi! This bot links your Telegram account to your Switchyard account, which unlocks the free models.\n\n' +
    'Ask your Switchyard operator for a link code and open the link you get, or send "/start CODE" here.',
  linked: 'Done: this chat is now linked to your Switchyard account, and free models are unlocked.\n\nSend /status to check, /unlink to undo.',
  invalidCode: 'That link code is not valid or has already been used. Ask for a new link code and open the new link.',
  expiredCode: `That link code has expired (codes are valid for ${ttlMinutes} minutes). Ask for a new one and open the new link.`,
  chatTaken: 'This chat is already linked to another Switchyard account. Send /unlink first, then open your link again.',
  unlinked: 'This chat is no longer linked to a Switchyard account. Free models are locked again until you link one.',
  notLinked: 'This chat is not linked to any Switchyard account. Open a link from your operator to link it.',
  status: (accountName: string) => `This chat is linked to the Switchyard account "${accountName}".`,
  help: 'Commands:\n/start CODE: link this chat to your Switchyard account\n/status: show whether this chat is linked\n/unlink: remove the link',
  failed: 'Sorry, something went wrong on our side. Please try again in a minute.',
} as const;
