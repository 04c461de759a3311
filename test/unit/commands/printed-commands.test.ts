// Issue 24, item 3: the resume command printed after Ctrl-C on a file read with
// `--encoding windows-1252` failed as printed ("not valid UTF-8"). Every command payops prints for
// the user to run — the resume command and its `runs resume` twin, a refusal's `add --resume` or
// `--skip-done`, `payops runs show …`, status's suggestions — is collected here from realistic
// scenarios and run as printed, each from the state it was printed in (PAYOPS_HOME and the working
// folder copied back before each), through main(argv, io) against a sandbox over loopback: none may
// end in a usage or input error (exit 2).
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFromConfig } from '../../../src/factory.js';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js';
import { createOrders, ledger } from '../../helpers/sandbox-admin.js';
import { expectCleanProcess, REFUND_HEADER } from './support.js';

expectCleanProcess();

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());

/** Splits a printed command into its arguments as a POSIX shell would (quotes as quote.ts writes them). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '$' && line[i + 1] === "'") {
      let s = '';
      for (i += 2; line[i] !== "'"; i++) {
        if (line[i] === '\\') {
          const n = line[++i]!;
          if (n === 'x') {
            s += String.fromCharCode(Number.parseInt(line.slice(i + 1, i + 3), 16));
            i += 2;
          } else if (n === 'u') {
            s += String.fromCharCode(Number.parseInt(line.slice(i + 1, i + 5), 16));
            i += 4;
          } else s += n;
        } else s += line[i];
      }
      word = (word ?? '') + s;
    } else if (c === '\\') {
      word = (word ?? '') + line[++i];
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * The commands a text tells the user to run: `payops …` in backticks, after "resume with:" and
 * "or:", on a line of its own (status, a list of runs); and "add --FLAG" applied to `argv`.
 */
function printedCommands(text: string, argv: readonly string[]): string[][] {
  const found: string[] = [];
  for (const m of text.matchAll(/`(payops [^`]+)`/g)) found.push(m[1]!);
  for (const m of text.matchAll(/(?:resume with|or): (payops .+?)$/gm)) found.push(m[1]!);
  for (const m of text.matchAll(/^ +(payops \S.*?)(?: {3}\(.*)?$/gm)) found.push(m[1]!);
  // "(add --out FILE for a file)": a placeholder, not a command
  const commands = found
    .map((c) => c.replace(/ +\(add --out FILE.*$/, ''))
    .filter((c) => !/[A-Z]{2,}(?:-[A-Z]+)?\b/.test(c.replace(/^payops /, '')))
    .map((c) => shellWords(c).slice(1));
  for (const m of text.matchAll(/\badd (--[a-z-]+)\b(?! [A-Z])/g)) commands.push([...argv, m[1]!]);
  for (const m of text.matchAll(/, or (--[a-z-]+) to\b/g)) commands.push([...argv, m[1]!]);
  for (const m of text.matchAll(/(?:hint: |; )(--[a-z-]+) sends\b/g)) commands.push([...argv, m[1]!]);
  const seen = new Set<string>();
  return commands.filter((c) => {
    const k = JSON.stringify(c);
    return !seen.has(k) && Boolean(seen.add(k));
  });
}

/** A desk: PAYOPS_HOME with the working folder inside it, so one copy keeps the whole state. */
function desk() {
  const home = tempDir('payops-desk-');
  const work = join(home, 'work');
  mkdirSync(work);
  return { home, work, io: () => fakeIo({ home, cwd: work, env: sandbox.env }) };
}

/** Each command, run as printed from a copy of the state it was printed in; their results. */
async function runEachAsPrinted(d: ReturnType<typeof desk>, commands: string[][]) {
  const saved = tempDir('payops-saved-');
  cpSync(d.home, saved, { recursive: true });
  const results: Array<{ argv: string[]; code: number; stderr: string }> = [];
  for (const argv of commands) {
    rmSync(d.home, { recursive: true, force: true });
    cpSync(saved, d.home, { recursive: true });
    const r = await runMain(argv, d.io());
    results.push({ argv, code: r.code, stderr: r.stderr });
  }
  return results;
}

/**
 * `forPerson`: commands printed for a person at a terminal (status's list), which may ask before
 * money moves: without a terminal here, that question is the one refusal allowed.
 */
function expectNoneRefusedAsUsage(
  results: Awaited<ReturnType<typeof runEachAsPrinted>>,
  forPerson: ReadonlySet<string> = new Set(),
) {
  for (const r of results) {
    const line = r.argv.join(' ');
    if (forPerson.has(line) && /confirmation needed, but there is no terminal/.test(r.stderr)) continue;
    expect(r.code, `payops ${line}\n${r.stderr}`).not.toBe(2);
  }
}

/** A windows-1252 refund file of `orders`, reasons with umlauts, 1.00 each. */
function writeLatin1Refunds(dir: string, orders: Awaited<ReturnType<typeof createOrders>>): string {
  const rows = orders.map(
    (o) => `${o.transaction_id},${o.order_no},${o.currency},${o.amount},1.00,Rückerstattung Größe`,
  );
  writeFileSync(
    join(dir, 'erstattungen.csv'),
    Buffer.from(`${[REFUND_HEADER, ...rows].join('\n')}\n`, 'latin1'),
  );
  return 'erstattungen.csv';
}

/** `argv` with Ctrl-C pressed once the gateway has answered the run's first request. */
async function ctrlCAfterFirstAnswer(d: ReturnType<typeof desk>, argv: string[]) {
  let pressed = false;
  return runMain(argv, d.io(), {
    clientFactory: async (ctx, config) => {
      const real = await clientFromConfig(ctx, config);
      return {
        ...real,
        sendBatch: async (op, elements, opts) => {
          const answer = await real.sendBatch(op, elements, opts);
          if (!pressed) {
            pressed = true;
            process.emit('SIGINT');
          }
          return answer;
        },
      };
    },
  });
}

describe.runIf(process.platform === 'linux')('every command payops prints works as printed', () => {
  it('after Ctrl-C on a windows-1252 file: the resume commands, `runs show`, and status suggestions', async () => {
    const orders = await createOrders(sandbox.url, 150);
    const ids = orders.map((o) => o.transaction_id);
    const d = desk();
    const file = writeLatin1Refunds(d.work, orders);
    const argv = ['--concurrency', '1', 'refund', '--file', file, '--encoding', 'windows-1252', '--yes'];
    const first = await ctrlCAfterFirstAnswer(d, argv);
    expect(first.code, first.stderr).toBe(130);
    expect(first.stderr).toContain(`resume with: payops refund --file ${file} --resume --yes`);
    const status = await runMain(['status'], d.io());
    const again = await runMain(argv, d.io()); // refused: an unfinished run; the hint says what to add
    expect(again.code, again.stderr).toBe(2);

    const fromStatus = printedCommands(status.stdout + status.stderr, ['status']);
    expect(fromStatus.length, status.stdout).toBeGreaterThan(0);
    const fromRun = [...printedCommands(first.stderr, argv), ...printedCommands(again.stderr, argv)];
    const commands = [...fromRun, ...fromStatus];
    const shown = commands.map((c) => c.join(' '));
    expect(shown).toContain(`refund --file ${file} --resume --yes`);
    expect(shown.some((c) => /^runs resume \S+ --yes$/.test(c))).toBe(true);
    expect(shown.some((c) => /^runs resume \S+$/.test(c))).toBe(true); // status's
    expect(shown.some((c) => /--encoding windows-1252 --yes --resume$/.test(c))).toBe(true);
    const results = await runEachAsPrinted(d, commands);
    // Status's own suggestions are for a person, who is asked; the run's must run from a script too.
    const runLines = new Set(fromRun.map((c) => c.join(' ')));
    const forPerson = fromStatus.map((c) => c.join(' ')).filter((c) => !runLines.has(c));
    expectNoneRefusedAsUsage(results, new Set(forPerson));
    // Each way of resuming finished the run: every order refunded once, the reason read as written.
    for (const r of results.filter(
      (x) => x.argv.includes('--yes') && (x.argv.includes('--resume') || x.argv[1] === 'resume'),
    )) {
      expect(r.code, `payops ${r.argv.join(' ')}\n${r.stderr}`).toBe(0);
    }
    const refunds = (await ledger(sandbox.url)).filter(
      (e) => e.kind === 'refund' && ids.includes(e.transaction_id),
    );
    // Each order once by the run or its resumes, never twice, and once more by `--force`, which
    // starts a new run on purpose: the hint printed it.
    const forced = commands.filter((c) => c.at(-1) === '--force').length;
    expect(forced).toBe(1);
    const per = new Map<string, number>();
    for (const e of refunds) per.set(e.transaction_id, (per.get(e.transaction_id) ?? 0) + 1);
    expect(per.size).toBe(ids.length);
    expect([...new Set(per.values())]).toEqual([1 + forced]);
  });

  it('a file already processed: `runs show`, add --skip-done and add --force work as printed', async () => {
    const orders = await createOrders(sandbox.url, 3);
    const d = desk();
    const file = writeLatin1Refunds(d.work, orders);
    const argv = ['refund', '--file', file, '--encoding', 'windows-1252', '--yes'];
    const done = await runMain(argv, d.io());
    expect(done.code, done.stderr).toBe(0);
    const again = await runMain(argv, d.io());
    expect(again.code, again.stderr).toBe(2);
    const commands = [...printedCommands(done.stderr, argv), ...printedCommands(again.stderr, argv)];
    const shown = commands.map((c) => c.join(' '));
    expect(shown.some((c) => /^runs show \S+$/.test(c))).toBe(true);
    expect(shown.some((c) => c.endsWith('--skip-done'))).toBe(true);
    expectNoneRefusedAsUsage(await runEachAsPrinted(d, commands));
  });
});
