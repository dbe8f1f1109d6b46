import type { AppContext } from '../app-context.js';
import { findAccount } from '../store/repositories/accounts.js';
import { deleteMessengerLinkByExternalId, findMessengerLinkByExternalId } from '../store/repositories/messenger-links.js';
import { botReplies } from './bot-replies.js';
import { parseBotCommand, readTelegramMessage, type BotCommand } from './read-telegram-message.js';
import { redeemLinkCode } from './redeem-link-code.js';

export interface BotMessage {
  chatId: number;
  text: string;
}

interface Chat {
  messenger: 'telegram';
  externalId: string;
}

type UpdateContext = Pick<AppContext, 'store' | 'clock' | 'logger'>;

/** Our codes are base64url; anything else cannot be one, and needs no lookup. */
const codePattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Acts on one Telegram update and returns what the bot should answer, or null for updates it
 * ignores. Never throws: a failure is logged and answered with an apology, because the webhook
 * must still say 200 (Telegram would otherwise redeliver the update again and again).
 */
export async function handleTelegramUpdate(context: UpdateContext, update: unknown): Promise<BotMessage | null> {
  const message = readTelegramMessage(update);
  if (!message) return null;
  const chat: Chat = { messenger: 'telegram', externalId: String(message.chatId) };
  try {
    return { chatId: message.chatId, text: await answerCommand(context, parseBotCommand(message.text), chat) };
  } catch (error) {
    context.logger.error({ err: error, updateId: message.updateId }, 'telegram update failed');
    return { chatId: message.chatId, text: botReplies.failed };
  }
}

async function answerCommand(context: UpdateContext, command: BotCommand | null, chat: Chat): Promise<string> {
  switch (command?.name) {
    case 'start':
      return command.argument ? linkChat(context, command.argument, chat) : botReplies.welcome;
    case 'unlink': {
      const removed = await deleteMessengerLinkByExternalId(context.store.db, chat.messenger, chat.externalId);
      if (removed) context.logger.info({ messenger: chat.messenger }, 'messenger unlinked by the chat');
      return removed ? botReplies.unlinked : botReplies.notLinked;
    }
    case 'status': {
      const link = await findMessengerLinkByExternalId(context.store.db, chat.messenger, chat.externalId);
      const account = link && (await findAccount(context.store.db, link.accountId));
      return account ? botReplies.status(account.name) : botReplies.notLinked;
    }
    default:
      return botReplies.help;
  }
}

async function linkChat(context: UpdateContext, code: string, chat: Chat): Promise<string> {
  if (!codePattern.test(code)) return botReplies.invalidCode;
  const result = await redeemLinkCode(context, code, chat);
  switch (result.status) {
    case 'linked':
      context.logger.info({ accountId: result.accountId, messenger: chat.messenger }, 'messenger linked');
      return botReplies.linked;
    case 'expired':
      return botReplies.expiredCode;
    case 'chat_taken':
      return botReplies.chatTaken;
    default:
      return botReplies.invalidCode;
  }
}
