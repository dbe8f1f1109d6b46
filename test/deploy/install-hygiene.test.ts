import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// What a user's `npm install` of the gateway installs is the root lock file; what only the tests
// drive lives in test/package.json (scripts/install-test-clients.mjs installs it before `npm test`).
const root = new URL('../../', import.meta.url);
const readJson = (path: string) => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

interface LockEntry {
  version?: string;
  engines?: Record<string, string> | string[];
  hasInstallScript?: boolean;
  optional?: boolean;
  link?: boolean;
}

const manifest = readJson('package.json') as {
  engines: { node: string };
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};
const lock = readJson('package-lock.json') as { packages: Record<string, LockEntry> };
const testClients = readJson('test/package.json') as { dependencies: Record<string, string> };
const installed = Object.entries(lock.packages).filter(([path]) => path !== '');
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('install hygiene (a user\'s npm install of the gateway)', () => {
  it('every package the root lock installs supports the Node versions we support, so npm prints no EBADENGINE', () => {
    const lowest = semver.minVersion(manifest.engines.node)!.version;
    const unsupported = installed.flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      // npm skips an optional package that does not fit the engine, without a warning.
      if (!range || entry.optional) return [];
      return [lowest, process.version].filter((version) => !semver.satisfies(version, range)).map((version) => `${nameOf(path)}@${entry.version} needs node ${range}, not ${version}`);
    });
    expect(unsupported).toEqual([]);
  });

  it('every install script in the root lock is declared in allowScripts', () => {
    const undeclared = installed.filter(([, entry]) => entry.hasInstallScript).map(([path]) => nameOf(path)).filter((name) => !(name in manifest.allowScripts));
    expect(undeclared).toEqual([]);
  });

  it('the clients and peer gateways only the tests drive are not in the root install', () => {
    const clients = Object.keys(testClients.dependencies).filter((name) => !(name in manifest.devDependencies));
    expect(clients).toEqual(expect.arrayContaining(['@portkey-ai/gateway', '@langchain/openai', '@openai/agents', 'ai']));
    const inRootLock = clients.filter((name) => lock.packages[`node_modules/${name}`] !== undefined);
    expect(inRootLock).toEqual([]);
  });
});
