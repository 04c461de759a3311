#!/usr/bin/env node
// Thin launcher. `--version` is answered here without loading anything else: cron jobs and
// scripts start payops thousands of times, and a bare version check should cost a bare node start.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(args);
}
