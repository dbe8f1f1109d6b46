import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BatchConfig, Config } from '../config/types.js';

/**
 * The settings of files and batches, with their defaults. Files live on local disk: under
 * `SWITCHYARD_FILES_DIR`, else in `files/` beside a SQLite database file, else in `./data/files`
 * (PostgreSQL); an in-memory database (tests, the demo) keeps them in a directory of the system's
 * temporary one, thrown away like the database.
 */
export function batchSettingsOf(config: Config): Required<BatchConfig> & { filesDir: string } {
  const configured = config.server.batches;
  return {
    filesDir: configured?.filesDir ?? defaultFilesDir(config.server.databaseUrl),
    maxFileBytes: configured?.maxFileBytes ?? 200 * 1024 * 1024,
    linesInFlight: configured?.linesInFlight ?? 4,
    linesPerProvider: configured?.linesPerProvider ?? 8,
  };
}

function defaultFilesDir(databaseUrl: string): string {
  if (databaseUrl === 'sqlite::memory:' || databaseUrl === 'sqlite::memory') return join(tmpdir(), `switchyard-files-${process.pid}`);
  if (databaseUrl.startsWith('sqlite:')) return join(dirname(databaseUrl.slice('sqlite:'.length)), 'files');
  return join('data', 'files');
}
