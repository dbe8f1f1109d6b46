#!/usr/bin/env node
// Entry point of the `switchyard` command. Builds the TypeScript sources first when the
// compiled output is missing or older than them (a fresh clone), then runs the CLI.
import { ensureBuild } from '../scripts/ensure-build.mjs';

ensureBuild();
const { main } = await import('../dist/cli/main.js');
await main(process.argv);
