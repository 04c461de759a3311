#!/usr/bin/env node
// Thin launcher, CommonJS on purpose (bin/package.json): a CommonJS entry point starts ~7 ms faster
// than an ES module one, and `--version` is answered here without loading anything else — cron jobs
// and scripts start payops thousands of times. Everything else is the ES module bundle in dist/.
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  import('../dist/cli.js').then(async ({ main }) => {
    process.exitCode = await main(args);
  });
}
