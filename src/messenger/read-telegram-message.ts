/** A private-chat text message, the only kind of update the bot acts on. */
export interface TelegramTextMessage {
  updateId: number | null;
  /** Telegram chat ids fit in 52 bits, so a JS number holds them exactly. */
  chatId: number;
  text: string;
}

/**
 * Reads an Update (https://core.telegram.org/bots/api#update) leniently: only the fields the
 * bot uses are checked, anything else (edits, channel posts, groups, stickers, photos, fields
 * added by later Bot API versions) yields null and is ignored.
 */
export function readTelegramMessage(update: unknown): TelegramTextMessage | null {
  if (!isObject(update)) return null;
  const message = update.message;
  if (!isObject(message) || !isObject(message.chat)) return null;
  const { id, type } = message.chat;
  if (type !== 'private' || typeof id !== 'number' || !Number.isSafeInteger(id)) return null;
  if (typeof message.text !== 'string') return null;
  const updateId = typeof update.update_id === 'number' ? update.update_id : null;
  return { updateId, chatId: id, text: message.text };
}

export interface BotCommand {
  /** Lower case, without "/" and without an "@botname" suffix. */
  name: string;
  argument: string;
}

/** `/start abc`, `/start@switchyard_bot abc` → {name: 'start', argument: 'abc'}; plain text → null. */
export function parseBotCommand(text: string): BotCommand | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('/')) return null;
  const space = trimmed.search(/\s/);
  const head = space === -1 ? trimmed : trimmed.slice(0, space);
  const argument = space === -1 ? '' : trimmed.slice(space).trim();
  const name = head.slice(1).split('@')[0].toLowerCase();
  return name ? { name, argument } : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
