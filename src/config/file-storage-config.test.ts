import { describe, expect, it } from 'vitest';
import { parseConfigText } from './load-config.js';
import { normalizeConfig } from './normalize-config.js';
import { readServerConfig } from './read-server-config.js';

const catalog = 'providers: []\nmodels: []\n';

/** The config from a file holding `files` (YAML, indented under it) and the environment `env`. */
function load(files: string | null, env: NodeJS.ProcessEnv = {}) {
  const text = files === null ? catalog : `${catalog}files:\n${files}`;
  return normalizeConfig(parseConfigText(text, 'switchyard.yaml', env), 'switchyard.yaml', readServerConfig(env));
}

describe('file storage settings', () => {
  it('keeps files on local disk when no S3 bucket is configured', () => {
    expect(load(null).server.batches?.s3).toBeNull();
  });

  it('reads files.s3 from the config file: prefix with one trailing slash, us-east-1 with an endpoint, keys from the environment', () => {
    const config = load(
      '  s3:\n    bucket: my-files\n    endpoint: http://minio:9000\n    prefix: /switchyard/files/\n    force_path_style: true\n    access_key_id: ${S3_KEY}\n    secret_access_key: ${S3_SECRET}\n',
      { S3_KEY: 'AKIDEXAMPLE', S3_SECRET: 'secret' },
    );
    expect(config.server.batches).toMatchObject({
      filesDir: null,
      maxFileBytes: 200 * 1024 * 1024,
      s3: { bucket: 'my-files', region: 'us-east-1', endpoint: 'http://minio:9000', prefix: 'switchyard/files/', forcePathStyle: true, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } },
    });
  });

  it('leaves the credentials to the AWS default chain when no key is written', () => {
    expect(load('  s3: {bucket: my-files, region: eu-west-1}\n').server.batches?.s3).toEqual({
      bucket: 'my-files',
      region: 'eu-west-1',
      endpoint: null,
      prefix: '',
      forcePathStyle: false,
      credentials: null,
    });
  });

  it('reads the SWITCHYARD_FILES_S3_* variables', () => {
    const server = readServerConfig({
      SWITCHYARD_FILES_S3_BUCKET: 'env-files',
      SWITCHYARD_FILES_S3_REGION: 'auto',
      SWITCHYARD_FILES_S3_ENDPOINT: 'https://account.r2.cloudflarestorage.com',
      SWITCHYARD_FILES_S3_PREFIX: 'gw',
      SWITCHYARD_FILES_S3_FORCE_PATH_STYLE: '0',
      SWITCHYARD_FILES_S3_ACCESS_KEY_ID: 'key',
      SWITCHYARD_FILES_S3_SECRET_ACCESS_KEY: 'secret',
      SWITCHYARD_FILES_S3_SESSION_TOKEN: 'token',
    });
    expect(server.batches?.s3).toEqual({
      bucket: 'env-files',
      region: 'auto',
      endpoint: 'https://account.r2.cloudflarestorage.com',
      prefix: 'gw/',
      forcePathStyle: false,
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret', sessionToken: 'token' },
    });
    // An empty variable counts as unset.
    expect(readServerConfig({ SWITCHYARD_FILES_S3_BUCKET: 'env-files', SWITCHYARD_FILES_S3_REGION: 'eu-west-1', SWITCHYARD_FILES_S3_ACCESS_KEY_ID: '' }).batches?.s3?.credentials).toBeNull();
  });

  it.each([
    ['  s3: {bucket: My_Files, region: eu-west-1}\n', 'switchyard.yaml: files.s3.bucket: expected a bucket name (3 to 63 lowercase letters, digits, dots and hyphens), got "My_Files"'],
    ['  s3: {bucket: my-files}\n', "switchyard.yaml: files.s3.region: expected the bucket's region (e.g. eu-west-1); it may only be left out with an endpoint"],
    ['  s3: {bucket: my-files, endpoint: "minio:9000x"}\n', 'switchyard.yaml: files.s3.endpoint: expected an http(s) URL with no credentials, query or fragment, got "minio:9000x"'],
    ['  s3: {bucket: my-files, endpoint: "http://user:pw@minio:9000"}\n', 'switchyard.yaml: files.s3.endpoint: expected an http(s) URL with no credentials, query or fragment'],
    ['  s3: {bucket: my-files, region: eu-west-1, prefix: "a//b"}\n', 'switchyard.yaml: files.s3.prefix: expected a key prefix'],
    ['  s3: {bucket: my-files, region: eu-west-1, prefix: "../up"}\n', 'switchyard.yaml: files.s3.prefix: expected a key prefix'],
    ['  s3: {bucket: my-files, region: eu-west-1, access_key_id: AKID}\n', 'switchyard.yaml: files.s3.secret_access_key: expected the secret access key that goes with access_key_id'],
    ['  s3: {bucket: my-files, region: eu-west-1, session_token: t}\n', 'switchyard.yaml: files.s3.session_token: expected access_key_id and secret_access_key with a session token'],
    ['  s3: {bucket: my-files, region: eu-west-1, access_key_id: "${UNSET_KEY}", secret_access_key: s}\n', 'switchyard.yaml: files.s3.access_key_id: expected an access key id, got an empty value (an unset variable?)'],
    ['  s3: {bucket: my-files, region: eu-west-1, force_path_style: "yes"}\n', 'switchyard.yaml: files.s3.force_path_style: expected boolean'],
    ['  s3: {bucket: my-files, region: eu-west-1, acl: private}\n', 'switchyard.yaml: files.s3.acl: unknown field'],
    ['  s3: {region: eu-west-1}\n', 'switchyard.yaml: files.s3.bucket: expected the name of the bucket'],
  ])('refuses %j at load, naming the field', (files, message) => {
    expect(() => load(files)).toThrow(message);
  });

  it.each([
    [{ SWITCHYARD_FILES_S3_REGION: 'eu-west-1' }, 'environment variable SWITCHYARD_FILES_S3_BUCKET: expected the bucket\'s name, since SWITCHYARD_FILES_S3_REGION is set'],
    [{ SWITCHYARD_FILES_S3_BUCKET: 'b' }, 'environment variable SWITCHYARD_FILES_S3_BUCKET: expected a bucket name'],
    [{ SWITCHYARD_FILES_S3_BUCKET: 'my-files' }, 'environment variable SWITCHYARD_FILES_S3_REGION: expected the bucket\'s region'],
    [{ SWITCHYARD_FILES_S3_BUCKET: 'my-files', SWITCHYARD_FILES_S3_REGION: 'eu-west-1', SWITCHYARD_FILES_S3_FORCE_PATH_STYLE: 'yes' }, 'environment variable SWITCHYARD_FILES_S3_FORCE_PATH_STYLE: expected 1, 0, true or false, got "yes"'],
    [{ SWITCHYARD_FILES_S3_BUCKET: 'my-files', SWITCHYARD_FILES_S3_REGION: 'eu-west-1', SWITCHYARD_FILES_S3_SECRET_ACCESS_KEY: 's' }, 'environment variable SWITCHYARD_FILES_S3_ACCESS_KEY_ID: expected the access key id that goes with secret_access_key'],
    [{ SWITCHYARD_FILES_S3_BUCKET: 'my-files', SWITCHYARD_FILES_S3_ENDPOINT: 'ftp://files' }, 'environment variable SWITCHYARD_FILES_S3_ENDPOINT: expected an http(s) URL'],
    [{ SWITCHYARD_FILES_S3_BUCKET: 'my-files', SWITCHYARD_FILES_S3_REGION: 'eu-west-1', SWITCHYARD_FILES_DIR: '/var/files' }, 'environment variable SWITCHYARD_FILES_DIR: local file storage, but SWITCHYARD_FILES_S3_BUCKET puts the files in S3: set one of them'],
  ])('refuses the variables %j at load, naming the variable', (env, message) => {
    expect(() => readServerConfig(env)).toThrow(message);
  });

  it('refuses S3 configured both in the file and in the environment, or the file with SWITCHYARD_FILES_DIR', () => {
    const files = '  s3: {bucket: my-files, region: eu-west-1}\n';
    expect(() => load(files, { SWITCHYARD_FILES_S3_BUCKET: 'other', SWITCHYARD_FILES_S3_REGION: 'eu-west-1' })).toThrow(
      'switchyard.yaml: files.s3: expected S3 storage in one place: the SWITCHYARD_FILES_S3_BUCKET variables configure it too',
    );
    expect(() => load(files, { SWITCHYARD_FILES_DIR: '/var/files' })).toThrow('switchyard.yaml: files.s3: expected either S3 storage or SWITCHYARD_FILES_DIR (local disk), not both');
  });
});
