#!/usr/bin/env node
// Thin launcher, CommonJS on purpose (bin/package.json), like the shell it loads (dist/cli.cjs):
// CommonJS starts faster than ES modules, and cron jobs and scripts start payops thousands of
// times. `--version` is answered here without loading anything else.
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  require('../dist/cli.cjs')
    .main(args)
    .then((code) => {
      process.exitCode = code;
    });
}
