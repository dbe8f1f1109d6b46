import type { ServerConfig } from './types.js';
import { ConfigError } from './config-error.js';
import { readCorsOrigins } from './read-cors-origins.js';
import { defaultHttpLimits } from './http-limits.js';
import { readTelegramConfig } from './read-telegram-config.js';
import { defaultResponseStorage } from './default-response-storage.js';
import { defaultBatchConfig } from './default-batch-config.js';
import { readS3StorageEnv } from './normalize-file-storage.js';

/** Reads the environment variables of docs/api-decisions.md §1 (listen address, stores, admin token, limits). */
export function readServerConfig(env: NodeJS.ProcessEnv): ServerConfig {
  return {
    host: env.HOST || '127.0.0.1',
    port: readInteger(env, 'PORT', 8080, 0, 65535),
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/switchyard.db',
    redisUrl: env.REDIS_URL || null,
    adminToken: env.SWITCHYARD_ADMIN_TOKEN || null,
    publicUrl: readPublicUrl(env),
    bodyLimitBytes: readInteger(env, 'SWITCHYARD_BODY_LIMIT_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    shutdownDrainMs: readInteger(env, 'SWITCHYARD_SHUTDOWN_DRAIN_MS', 5_000, 0, 600_000),
    shutdownGraceMs: readInteger(env, 'SWITCHYARD_SHUTDOWN_GRACE_MS', 30_000, 0, 3_600_000),
    warmUpRequests: readInteger(env, 'SWITCHYARD_WARMUP_REQUESTS', 400, 0, 100_000),
    logLevel: env.LOG_LEVEL || 'info',
    http: {
      headersTimeoutMs: readInteger(env, 'SWITCHYARD_HEADERS_TIMEOUT_MS', defaultHttpLimits.headersTimeoutMs, 1000, 600_000),
      requestTimeoutMs: readInteger(env, 'SWITCHYARD_REQUEST_TIMEOUT_MS', defaultHttpLimits.requestTimeoutMs, 1000, 3_600_000),
      keepAliveTimeoutMs: readInteger(env, 'SWITCHYARD_KEEP_ALIVE_TIMEOUT_MS', defaultHttpLimits.keepAliveTimeoutMs, 1000, 600_000),
      largeUploadBytes: readInteger(env, 'SWITCHYARD_LARGE_UPLOAD_BYTES', defaultHttpLimits.largeUploadBytes, 1024, 1024 * 1024 * 1024),
      maxLargeUploads: readInteger(env, 'SWITCHYARD_MAX_LARGE_UPLOADS', defaultHttpLimits.maxLargeUploads, 1, 10_000),
      maxStreamsPerKey: readInteger(env, 'SWITCHYARD_MAX_STREAMS_PER_KEY', defaultHttpLimits.maxStreamsPerKey, 1, 1_000_000),
      maxSocketsPerKey: readInteger(env, 'SWITCHYARD_MAX_SOCKETS_PER_KEY', defaultHttpLimits.maxSocketsPerKey, 1, 1_000_000),
      socketIdleTimeoutMs: readInteger(env, 'SWITCHYARD_SOCKET_IDLE_TIMEOUT_MS', defaultHttpLimits.socketIdleTimeoutMs, 1000, 86_400_000),
    },
    telegram: readTelegramConfig(env),
    corsOrigins: readCorsOrigins(env),
    passThrough: readSwitch(env, 'SWITCHYARD_PASS_THROUGH', true),
    responses: {
      retentionDays: readInteger(env, 'SWITCHYARD_RESPONSE_RETENTION_DAYS', defaultResponseStorage.retentionDays, 1, 3650),
      maxStoredBytes: readInteger(env, 'SWITCHYARD_RESPONSE_MAX_STORED_BYTES', defaultResponseStorage.maxStoredBytes, 1024, 1024 * 1024 * 1024),
      maxFreeStoredPerAccount: readInteger(env, 'SWITCHYARD_FREE_STORED_RESPONSES_PER_ACCOUNT', defaultResponseStorage.maxFreeStoredPerAccount, 0, 100_000_000),
      maxFreeStoredBytesPerAccount: readInteger(env, 'SWITCHYARD_FREE_STORED_BYTES_PER_ACCOUNT', defaultResponseStorage.maxFreeStoredBytesPerAccount, 0, 1024 * 1024 * 1024 * 1024),
    },
    batches: readBatchConfig(env),
  };
}

function readBatchConfig(env: NodeJS.ProcessEnv): NonNullable<ServerConfig['batches']> {
  const filesDir = env.SWITCHYARD_FILES_DIR || null;
  const s3 = readS3StorageEnv(env);
  // Two places for the files would leave one of them silently unused.
  if (s3 && filesDir) throw new ConfigError('environment variable SWITCHYARD_FILES_DIR: local file storage, but SWITCHYARD_FILES_S3_BUCKET puts the files in S3: set one of them');
  return {
    filesDir,
    maxFileBytes: readInteger(env, 'SWITCHYARD_FILES_MAX_BYTES', defaultBatchConfig.maxFileBytes, 1024, 1024 * 1024 * 1024 * 1024),
    linesInFlight: readInteger(env, 'SWITCHYARD_BATCH_LINES_IN_FLIGHT', defaultBatchConfig.linesInFlight, 1, 256),
    linesPerProvider: readInteger(env, 'SWITCHYARD_BATCH_LINES_PER_PROVIDER', defaultBatchConfig.linesPerProvider, 1, 1024),
    s3,
  };
}

function readInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`environment variable ${name}: expected an integer from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

function readSwitch(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false') return false;
  throw new ConfigError(`environment variable ${name}: expected 1, 0, true or false, got "${text}"`);
}

/**
 * SWITCHYARD_PUBLIC_URL: the origin people reach the page at (`https://ai.example.com`), used for
 * the links the gateway hands out (sign-in callbacks, magic links, Checkout's return pages). Read
 * from the config, never from a request's Host header, which a caller chooses. Null when unset.
 */
function readPublicUrl(env: NodeJS.ProcessEnv): string | null {
  const text = env.SWITCHYARD_PUBLIC_URL;
  if (text === undefined || text === '') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`environment variable SWITCHYARD_PUBLIC_URL: expected an http(s) origin like "https://ai.example.com", got "${text}"`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new ConfigError(`environment variable SWITCHYARD_PUBLIC_URL: expected an http(s) origin with no path, query or credentials, got "${text}"`);
  }
  return url.origin;
}
