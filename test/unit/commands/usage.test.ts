// Usage errors and flag conflicts of every command group, through main(argv, io) in this process:
// exit 2, the message names what is wrong, and nothing is read or sent. These need no gateway: each
// is refused before configuration is read, and the environment points at no gateway at all.
import { describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/in-process.js';
import { expectCleanProcess } from './support.js';

expectCleanProcess();

const CARD = '4111111111111111';

describe('the program', () => {
  it('no arguments: the help on stderr, exit 2', async () => {
    const r = await runMain([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Usage: payops \[options\] \[command\]/);
    expect(r.stdout).toBe('');
  });

  it('--help: the help on stdout, exit 0', async () => {
    const r = await runMain(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: payops/);
    expect(r.stdout).toContain('--dry-run');
    // The file may be named without --file (issue 15): `refund [options] [csv]`.
    expect(r.stdout).toMatch(/\n {2}refund \[options\] \[csv\] +refund captured orders/);
    expect(r.stdout).toContain('Money movements');
  });

  it('a command --help: its own help, exit 0', async () => {
    const r = await runMain(['refund', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: payops refund \[options\] \[csv\]/);
    expect(r.stdout).toContain('--refund-amount <amount>');
    expect(r.stdout).toContain('payops refund samples/refunds.csv --dry-run');
  });

  it('an unknown command: exit 2, named', async () => {
    const r = await runMain(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'frobnicate'/);
  });

  it('an unknown flag: exit 2, named, with the hint to --help', async () => {
    const r = await runMain(['query', '--order-no', 'A', '--nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--nope'/);
    expect(r.stderr).toContain('(run with --help for usage)');
  });

  it('a bad global value: exit 2, the flag named', async () => {
    const zero = await runMain(['--concurrency', '0', 'query', '--order-no', 'A']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--concurrency must be a whole number from 1 to 64, not "0"');
    const timeout = await runMain(['--timeout', '30sec', 'query', '--order-no', 'A']);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain(
      '--timeout must be milliseconds (30000) or a duration such as 30s or 2m (at most 10m), not "30sec"',
    );
    const format = await runMain(['--output', 'xml', 'query', '--order-no', 'A']);
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/--output <format>.*'xml' is invalid/s);
  });
});

describe('capture, cancel, review, refund', () => {
  it('--file and order flags together: exit 2, both named', async () => {
    const r = await runMain(['refund', '--file', 'x.csv', '--transaction-id', 'T1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--file');
    expect(r.stderr).toContain('--transaction-id');
    expect(r.stderr).toMatch(/not both/);
  });

  it('neither --file nor an order: exit 2, the flags of one order listed', async () => {
    const r = await runMain(['capture']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'give --file FILE.csv, or one order with --transaction-id --order-no --currency --amount',
    );
  });

  it('--resume with --force: exit 2, before the file is read', async () => {
    const r = await runMain(['refund', '--file', 'does-not-exist.csv', '--resume', '--force']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--resume .* --force/);
    expect(r.stderr).not.toContain('does-not-exist');
  });

  it("another operation's flag is unknown: exit 2", async () => {
    const r = await runMain(['capture', '--transaction-id', 'T1', '--refund-amount', '1.00']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--refund-amount'/);
  });

  it('--max-orders 0: exit 2, the flag named', async () => {
    const r = await runMain(['cancel', '--file', 'x.csv', '--max-orders', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-orders must be a whole number ≥ 1, not "0"');
  });

  it('a bad --max-amount: exit 2', async () => {
    const r = await runMain(['review', '--file', 'x.csv', '--max-amount', 'lots']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-amount/);
  });
});

describe('payout', () => {
  it('--request and --file together: exit 2', async () => {
    const r = await runMain(['payout', '--request', 'a.json', '--file', 'b.csv']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give exactly one of --request FILE.json (one payout) or --file FILE.csv');
  });

  it('neither --request nor --file: exit 2', async () => {
    const r = await runMain(['payout']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give exactly one of --request');
  });

  it('--resume with --force: exit 2', async () => {
    const r = await runMain(['payout', '--file', 'b.csv', '--resume', '--force']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--resume and --force contradict each other');
  });
});

describe('query and refunds search', () => {
  for (const cmd of [['query'], ['refunds', 'search']]) {
    const name = cmd.join(' ');
    it(`${name} without a selector: exit 2`, async () => {
      const r = await runMain(cmd);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('say which orders: nothing to look up');
    });

    it(`${name} --from after --to: exit 2, both shown`, async () => {
      const r = await runMain([...cmd, '--from', '2026-11-07', '--to', '2026-11-01']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--from (2026-11-07) is after --to (2026-11-01)');
    });

    it(`${name} --order-no with an empty value: exit 2`, async () => {
      const r = await runMain([...cmd, '--order-no', ',']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--order-no was given without a value');
    });

    it(`${name} with a date it cannot read: exit 2, the flag named`, async () => {
      const r = await runMain([...cmd, '--from', 'last tuesday']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--from "last tuesday"');
    });
  }

  it('--with-refunds belongs to query only', async () => {
    const r = await runMain(['refunds', 'search', '--order-no', 'A', '--with-refunds']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--with-refunds'/);
  });
});

describe('pay', () => {
  it('without a payment kind: the help, exit 2', async () => {
    const r = await runMain(['pay']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Usage: payops pay/);
  });

  it('a card number as an argument: exit 2, and it is never echoed', async () => {
    const r = await runMain(['pay', 'card', '--card-number', CARD, '--amount', '1.00']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/argument #4 \(--card-number\) is a card field/);
    expect(r.stdout + r.stderr).not.toContain(CARD);
  });

  it('the generated field flags exist when a kind runs, and a bad one is still refused', async () => {
    const r = await runMain(['pay', 'apm', '--no-such-field', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--no-such-field'/);
    const help = await runMain(['pay', 'card', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--shopper-email <value>');
  });
});

describe('runs, config, call, sandbox, completion', () => {
  it('a missing argument: exit 2, named', async () => {
    // `runs show` and `runs resume` take the newest / the only unfinished run without an id (issue 15).
    for (const argv of [['runs', 'verify'], ['config', 'get'], ['config', 'use'], ['call']]) {
      const r = await runMain(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(/missing required argument '(id|key|profile|path)'/);
    }
  });

  it('runs show of a run that does not exist: exit 2', async () => {
    const r = await runMain(['runs', 'show', '20260101-000000-abcd']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('20260101-000000-abcd');
  });

  it('sandbox --port out of range and --seed not a number: exit 2, the flag named', async () => {
    const port = await runMain(['sandbox', '--port', '99999']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be 0–65535, not "99999"');
    const seed = await runMain(['sandbox', '--seed', 'x']);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain('--seed must be a whole number 0–1000000, not "x"');
  });

  it('completion for a shell it does not know: exit 2, the choices listed', async () => {
    const r = await runMain(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/'tcsh' is invalid.*bash, zsh, fish/s);
  });

  it('completion bash: the script on stdout, with the generated pay flags', async () => {
    const r = await runMain(['completion', 'bash']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('--shopper-email');
    expect(r.stdout).toContain('--refund-amount');
  });
});
