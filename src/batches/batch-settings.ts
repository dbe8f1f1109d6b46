import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaultBatchConfig } from '../config/default-batch-config.js';
import type { BatchConfig, Config, S3FileStorageConfig } from '../config/types.js';

/**
 * The settings of files and batches, with their defaults. Files live in the S3-compatible bucket
 * of `files.s3` (or `SWITCHYARD_FILES_S3_*`) when one is configured; else on local disk: under
 * `SWITCHYARD_FILES_DIR`, else in `files/` beside a SQLite database file, else in `./data/files`
 * (PostgreSQL); an in-memory database (tests, the demo) keeps them in a directory of the
 * system's temporary one, thrown away like the database.
 */
export function batchSettingsOf(config: Config): Required<Omit<BatchConfig, 's3'>> & { filesDir: string; s3: S3FileStorageConfig | null } {
  const configured = config.server.batches;
  return {
    filesDir: configured?.filesDir ?? defaultFilesDir(config.server.databaseUrl),
    maxFileBytes: configured?.maxFileBytes ?? defaultBatchConfig.maxFileBytes,
    linesInFlight: configured?.linesInFlight ?? defaultBatchConfig.linesInFlight,
    linesPerProvider: configured?.linesPerProvider ?? defaultBatchConfig.linesPerProvider,
    s3: configured?.s3 ?? null,
  };
}

function defaultFilesDir(databaseUrl: string): string {
  if (databaseUrl === 'sqlite::memory:' || databaseUrl === 'sqlite::memory') return join(tmpdir(), `switchyard-files-${process.pid}`);
  if (databaseUrl.startsWith('sqlite:')) return join(dirname(databaseUrl.slice('sqlite:'.length)), 'files');
  return join('data', 'files');
}
