import type { Migration } from 'kysely';
import * as initial from './2026-11-21-0001-initial.js';

/** Every migration, by name; names sort in the order they apply. Static imports keep builds self-contained. */
export const migrations: Record<string, Migration> = {
  '2026-11-21-0001-initial': initial,
};
