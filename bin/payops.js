#!/usr/bin/env node
// Thin launcher, CommonJS on purpose (bin/package.json), like the shell it loads (dist/cli.cjs):
// CommonJS starts faster than ES modules, and cron jobs and scripts start payops thousands of
// times. `--version` is answered here without loading anything else, and so is `--help` for a
// script (stdout not a terminal), from the text the build wrote.
'use strict';

const args = process.argv.slice(2);
const isVersion = (word) => word === '--version' || word === '-V';
if (args.length === 1 && isVersion(args[0])) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else if (args.length === 2 && args.some(isVersion) && args.includes('--verbose')) {
  versionVerbose();
} else if (!(args.length === 1 && (args[0] === '--help' || args[0] === '-h') && helpFromBuild())) {
  shell()
    .main(args)
    .then((code) => {
      process.exitCode = code;
    });
}

/**
 * `payops --version --verbose`: the version, node's, and the packages bundled inside dist/ with the
 * versions the build recorded (dist/bundled.json): an audit of node_modules does not see those.
 */
function versionVerbose() {
  const lines = [`payops ${require('../package.json').version}`, `node ${process.version}`];
  let bundled;
  try {
    bundled = require('../dist/bundled.json');
  } catch {
    lines.push('bundled packages: unknown (not built: run `npm run build`)');
  }
  if (bundled) {
    lines.push('bundled packages (inside dist/; a fix in one ships with a new payops release):');
    for (const [name, version] of Object.entries(bundled)) lines.push(`  ${name} ${version}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The shell; a checkout that was never built says so instead of a stack trace (exit 4). */
function shell() {
  if (args.some(isBulkVerb)) youngGenerationAtOnce();
  try {
    return require('../dist/cli.cjs');
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND' || !String(err.message).includes('dist/cli.cjs')) throw err;
    const root = require('node:path').join(__dirname, '..');
    process.stderr.write(
      `payops is not built yet (no ${root}/dist): run \`npm install\` or \`npm run build\` in ${root}\n`,
    );
    process.exit(4);
  }
}

/** A word of the command line that names a bulk command (refunds, captures, … from a file, or a resume). */
function isBulkVerb(word) {
  return (
    word === 'refund' || word === 'capture' || word === 'cancel' || word === 'review' || word === 'resume'
  );
}

/**
 * V8 starts the young generation at 1 MB and doubles it at each growth. For a bulk run, loading
 * the shell and its modules grows it at once to its maximum (32 MB here, reached either way in a
 * long run) instead of in four steps: in a 100,000-refund run the objects promoted through the small
 * sizes took 11-12 major collections (the run bounds the old generation, bulk/execute.ts); now 3-5,
 * and the client's CPU 8 % less (docs/performance.md). Set once the run has begun it changed
 * nothing: the growth that matters happens while the modules load. Not for other commands: the
 * fresh pages of a large young generation cost `payops query` ~35 ms, a seventh of its time. A
 * word that only looks like a verb (`query refund`) costs that, nothing else.
 */
function youngGenerationAtOnce() {
  require('node:v8').setFlagsFromString('--semi-space-growth-factor=16');
}

/**
 * `payops --help` into a pipe or a file prints the same text at every start: the build wrote it
 * (dist/help.txt, by the shell itself), so it is written here without loading the shell. On a
 * terminal the shell fits it to the width, so it runs. False when this cannot answer (then the
 * shell does); a reader that went away ends it quietly with 141, as the shell does.
 */
function helpFromBuild() {
  const fs = require('node:fs');
  if (require('node:tty').isatty(1)) return false;
  let text;
  try {
    text = fs.readFileSync(require('node:path').join(__dirname, '..', 'dist', 'help.txt'));
  } catch {
    return false;
  }
  let at = 0;
  try {
    while (at < text.length) at += fs.writeSync(1, text, at);
  } catch (err) {
    if (err.code === 'EPIPE') process.exitCode = 141;
    // A pipe that is full for now (EAGAIN): the rest goes through the stream, which waits.
    else if (err.code === 'EAGAIN') process.stdout.write(text.subarray(at));
    else {
      // As the shell says it (errors.ts): a full disk behind `> file`, say.
      process.stderr.write(
        `payops: standard output could not be written (${err.code ?? err.message}): what it shows is incomplete\n`,
      );
      process.exitCode = 4;
    }
  }
  return true;
}
