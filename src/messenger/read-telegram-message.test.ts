import { describe, expect, it } from 'vitest';
import { parseBotCommand, readTelegramMessage } from './read-telegram-message.js';

describe('readTelegramMessage', () => {
  const chat = { id: 42, type: 'private', first_name: 'Ada' };

  it('reads a private text message, ignoring fields it does not use', () => {
    expect(readTelegramMessage({ update_id: 7, message: { message_id: 1, date: 0, chat, text: '/status', entities: [], new_field: true } })).toEqual({ updateId: 7, chatId: 42, text: '/status' });
    expect(readTelegramMessage({ message: { chat, text: 'hi' } })).toEqual({ updateId: null, chatId: 42, text: 'hi' });
  });

  it('ignores everything else', () => {
    for (const update of [
      null,
      'x',
      [],
      {},
      { edited_message: { chat, text: 'hi' } },
      { message: { chat: { id: 42, type: 'group' }, text: 'hi' } },
      { message: { chat, photo: [] } },
      { message: { chat: { id: '42', type: 'private' }, text: 'hi' } },
      { message: { chat: { id: 2 ** 60, type: 'private' }, text: 'hi' } },
      { message: { text: 'hi' } },
    ]) {
      expect(readTelegramMessage(update)).toBeNull();
    }
  });
});

describe('parseBotCommand', () => {
  it('splits command and argument, dropping an @botname suffix', () => {
    expect(parseBotCommand('/start abc_DEF-1')).toEqual({ name: 'start', argument: 'abc_DEF-1' });
    expect(parseBotCommand('  /START@switchyard_bot   abc  ')).toEqual({ name: 'start', argument: 'abc' });
    expect(parseBotCommand('/status')).toEqual({ name: 'status', argument: '' });
    expect(parseBotCommand('/start\nabc')).toEqual({ name: 'start', argument: 'abc' });
  });

  it('is null for plain text', () => {
    expect(parseBotCommand('hello /start')).toBeNull();
    expect(parseBotCommand('/')).toBeNull();
    expect(parseBotCommand('')).toBeNull();
  });
});
