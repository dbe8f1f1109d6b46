import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

export interface UserRecord {
  id: string;
  name: string;
  /** Lower case; null for a user known only by Telegram or by an OIDC subject without a verified email. */
  email: string | null;
  telegramId: string | null;
  createdAt: string;
}

const columns = ['users.id', 'users.name', 'users.email', 'users.telegram_id', 'users.created_at'] as const;

function toUser(row: { id: string; name: string; email: string | null; telegram_id: string | null; created_at: string }): UserRecord {
  return { id: row.id, name: row.name, email: row.email, telegramId: row.telegram_id, createdAt: row.created_at };
}

export async function insertUser(db: Kysely<Database>, user: UserRecord): Promise<void> {
  await db.insertInto('users').values({ id: user.id, name: user.name, email: user.email, telegram_id: user.telegramId, created_at: user.createdAt }).execute();
}

export async function findUser(db: Kysely<Database>, id: string): Promise<UserRecord | undefined> {
  const row = await db.selectFrom('users').select(columns).where('id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserRecord | undefined> {
  const row = await db.selectFrom('users').select(columns).where('email', '=', email).executeTakeFirst();
  return row && toUser(row);
}

export async function findUserByTelegramId(db: Kysely<Database>, telegramId: string): Promise<UserRecord | undefined> {
  const row = await db.selectFrom('users').select(columns).where('telegram_id', '=', telegramId).executeTakeFirst();
  return row && toUser(row);
}

/** The user a method's subject names (an OpenID Connect provider's issuer and `sub`). */
export async function findUserByIdentity(db: Kysely<Database>, identity: { method: string; issuer: string; subject: string }): Promise<UserRecord | undefined> {
  const row = await db
    .selectFrom('user_identities')
    .innerJoin('users', 'users.id', 'user_identities.user_id')
    .select(columns)
    .where('user_identities.method', '=', identity.method)
    .where('user_identities.issuer', '=', identity.issuer)
    .where('user_identities.subject', '=', identity.subject)
    .executeTakeFirst();
  return row && toUser(row);
}

export async function insertUserIdentity(
  db: Kysely<Database>,
  identity: { method: string; issuer: string; subject: string; userId: string; createdAt: string },
): Promise<void> {
  await db
    .insertInto('user_identities')
    .values({ method: identity.method, issuer: identity.issuer, subject: identity.subject, user_id: identity.userId, created_at: identity.createdAt })
    .execute();
}

/**
 * Users newest first by id (`cursor`: the last id of the previous page), or the one whose email
 * is `email` (the whole address, lower case: served by the unique index).
 */
export async function listUsers(db: Kysely<Database>, options: { email?: string; limit: number; cursor?: string }): Promise<UserRecord[]> {
  let query = db.selectFrom('users').select(columns);
  if (options.email !== undefined) query = query.where('email', '=', options.email);
  if (options.cursor !== undefined) query = query.where('id', '<', options.cursor);
  return (await query.orderBy('id', 'desc').limit(options.limit).execute()).map(toUser);
}
