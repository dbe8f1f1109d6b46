import { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { registerAdminCommands } from './admin-commands.js';
import { serve } from './serve.js';

/** The `switchyard` command line. */
export async function main(argv: string[]): Promise<void> {
  const program = new Command('switchyard').description('Switchyard inference routing gateway');
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
  registerAdminCommands(program);
  await program.parseAsync(argv);
}
