import { readPackageVersion } from '../config/read-package-version.js';
import { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { runSimulatorFromCli, type SimulateCommandOptions } from '@switchyard/simulator';
import { registerAdminCommands } from './admin-commands.js';
import { registerConsoleCommands } from './console-commands.js';
import { registerRedemptionCommands } from './redemption-commands.js';
import { runDemo } from './demo.js';
import { serve } from './serve.js';

/** The `switchyard` command line. */
export async function main(argv: string[]): Promise<void> {
  const program = new Command('switchyard').description('Switchyard inference routing gateway').version(readPackageVersion(), '-V, --version', 'print the version');
  program
    .command('serve')
    .description('serve the API (PORT, HOST, DATABASE_URL, REDIS_URL, SWITCHYARD_CONFIG, SWITCHYARD_ADMIN_TOKEN)')
    .action(async () => {
      try {
        await serve();
      } catch (error) {
        // Config and start-up problems: a clear message, no stack trace.
        process.stderr.write(`switchyard: ${error instanceof ConfigError ? 'invalid configuration\n' : ''}${(error as Error).message}\n`);
        process.exit(1);
      }
    });
  const admin = registerAdminCommands(program);
  registerConsoleCommands(admin);
  registerRedemptionCommands(admin);
  program
    .command('demo')
    .description('run the gateway with the provider simulator and a demo account, and print calls to try')
    .action(async () => {
      try {
        await runDemo();
      } catch (error) {
        process.stderr.write(`switchyard demo: ${(error as Error).message}\n`);
        process.exit(1);
      }
    });
  program
    .command('simulate')
    .description('run the provider simulator (OpenAI, Anthropic and Gemini wire protocols) for tests, benchmarks and demos')
    .option('--port <port>', 'port, 0 picks a free one', '9090')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--latency <ms>', 'delay before the response headers')
    .option('--tps <tokens>', 'stream pacing in tokens per second; 0 = as fast as possible')
    .option('--chunk-tokens <n>', 'reply tokens per streamed chunk')
    .option('--reply-tokens <n>', 'words in a generated reply')
    .option('--api-key <key>', 'require this key on every request')
    .option('--keep-alive <ms>', 'how long an idle keep-alive connection stays open (default 5000)')
    .action(async (options: SimulateCommandOptions) => {
      try {
        const simulator = await runSimulatorFromCli(options);
        const stop = () => void simulator.close().then(() => process.exit(0));
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      } catch (error) {
        process.stderr.write(`switchyard simulate: ${(error as Error).message}\n`);
        process.exit(1);
      }
    });
  await program.parseAsync(argv);
}

