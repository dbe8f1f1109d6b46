import { Command } from 'commander';
import { expect, vi } from 'vitest';
import { registerAdminCommands } from '../../src/cli/admin-commands.js';
import { registerRedemptionCommands } from '../../src/cli/redemption-commands.js';

/**
 * Runs `switchyard admin …` in this process (no build step) with `env` set for the call, the
 * commands registered as `cli/main.ts` registers them, and answers its JSON output.
 */
export async function runAdminCommand(args: string[], env: Record<string, string>): Promise<any> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  const output: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    output.push(String(chunk));
    return true;
  });
  try {
    const program = new Command('switchyard').exitOverride();
    registerRedemptionCommands(registerAdminCommands(program));
    await program.parseAsync(['node', 'switchyard', 'admin', ...args]);
  } finally {
    write.mockRestore();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  expect(process.exitCode ?? 0).toBe(0);
  return JSON.parse(output.join(''));
}
