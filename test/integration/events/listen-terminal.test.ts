// What `payops listen` and `payops events list` look like on a terminal of 80 columns and into a
// pipe: on the terminal nothing is cut by the terminal's wrap (an amount, an id or a status split
// over two lines is misread); into a pipe every value is whole, one line per event.
import { describe, expect, it } from 'vitest';
import { postEvent, signedEvent, startListen, until } from '../../helpers/listen.js';
import { hasScript, screenOf, underPty } from '../../helpers/pty-screen.js';
import { cliEnv, runCli, tempDir } from '../../helpers/run-cli.js';

const ORDER = 'PO-20261206-022759-f15917';
const event = (n: number, eventType = 'payment.captured') =>
  signedEvent({
    event_id: `EV08D4D85AE15E33D000F501C${n}`,
    event_type: eventType,
    data: { order_no: `${ORDER}${n}`, amount: '25.00', currency: 'USD', payment_status: '3000' },
  });

/** A home whose journal holds `n` events, journaled by a real listen (piped). */
async function homeWithEvents(n: number): Promise<string> {
  const home = tempDir();
  const l = await startListen(home);
  try {
    for (let i = 0; i < n; i++) expect((await postEvent(l.url, event(i))).status).toBe(200);
    await until('the lines', () => l.stdout().split('\n').length > n);
  } finally {
    await l.stop();
  }
  return home;
}

describe('payops listen: one line per event', { timeout: 120_000 }, () => {
  it('into a pipe: the full line (date and time, type, order, amount, status, event id)', async () => {
    const home = tempDir();
    const l = await startListen(home);
    try {
      expect((await postEvent(l.url, event(1))).status).toBe(200);
      const line = await until('the line', () =>
        l
          .stdout()
          .split('\n')
          .find((x) => x.includes(ORDER)),
      );
      expect(line).toMatch(
        new RegExp(
          `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  payment\\.captured +${ORDER}1  USD 25\\.00  3000 captured  EV08D4D85AE15E33D000F501C1$`,
        ),
      );
    } finally {
      await l.stop();
    }
  });

  it.skipIf(!hasScript)('on a terminal of 80 columns: the line fits, no value is split', async () => {
    const home = tempDir();
    let posted = false;
    const run = await underPty(['listen', '--port', '0'], {
      columns: 80,
      env: cliEnv(home, { NO_COLOR: '1' }),
      // Once listen says where it listens, one event is posted; once its line is shown, Ctrl-C.
      interruptWhen: (raw) => {
        const at = /listening on (http:\/\/\S+?)\/? for/.exec(raw);
        if (at && !posted) {
          posted = true;
          void postEvent(at[1]!, event(1));
        }
        return posted && /3000 captured[^\n]*\n/.test(raw);
      },
    });
    const screen = screenOf(run.raw, 80);
    const shown = screen.lines.join('\n');
    expect(screen.wraps, shown).toEqual([]);
    const line = screen.lines.find((x) => x.includes(`${ORDER}1`)) ?? '';
    expect(line, shown).toMatch(/^\d\d:\d\d:\d\d {2}payment\.captured +\S+ {2}USD 25\.00 {2}3000 captured$/);
  });
});

describe('payops events list', { timeout: 120_000 }, () => {
  it('into a pipe: CSV, one line per event, every order number whole', async () => {
    const home = await homeWithEvents(3);
    const r = await runCli(['events', 'list'], { home });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split(/\r?\n/);
    expect(lines[0]).toBe('received,event id,type,order/payout,amount,status,forwarded');
    expect(lines).toHaveLength(4);
    for (let i = 0; i < 3; i++) expect(lines[i + 1]).toContain(`,${ORDER}${i},USD 25.00,3000 captured,`);
  });

  it.skipIf(!hasScript)('on a terminal of 80 columns: no id or amount is cut or split', async () => {
    const home = await homeWithEvents(3);
    const run = await underPty(['events', 'list'], { columns: 80, env: cliEnv(home, { NO_COLOR: '1' }) });
    const screen = screenOf(run.raw, 80);
    const shown = screen.lines.join('\n');
    expect(run.code, shown).toBe(0);
    expect(screen.wraps, shown).toEqual([]);
    for (let i = 0; i < 3; i++) {
      expect(shown).toContain(`${ORDER}${i}`);
      expect(shown).toContain(`EV08D4D85AE15E33D000F501C${i}`);
    }
    expect(shown).not.toContain('…');
  });
});
