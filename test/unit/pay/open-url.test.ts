// Opening the APM issuer_url (issue 13, item 13): the address comes from an unsigned answer, so it
// is opened without a shell (`cmd /c start` ran what followed an `&`), and only when it is http(s).
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { browsableUrl, openerFor, openInBrowser, openUrl, type Spawner } from '../../../src/pay/open-url.js';

interface Spawned {
  command: string;
  args: readonly string[];
  options: Record<string, unknown>;
}

/** A spawn stand-in that records its call and reports the child started (or failed). */
function fakeSpawn(calls: Spawned[], outcome: 'spawn' | 'error' = 'spawn'): Spawner {
  return (command, args, options) => {
    calls.push({ command, args, options: options as Record<string, unknown> });
    const child = Object.assign(new EventEmitter(), { unref: () => {} });
    setImmediate(() => child.emit(outcome, outcome === 'error' ? new Error('ENOENT') : undefined));
    return child as never;
  };
}

const HOSTILE = 'https://issuer.example/pay?id=1&calc.exe&x="y"|z';

describe('the opener of each platform', () => {
  it('never goes through a shell: no cmd on Windows', () => {
    expect(openerFor('win32').command).not.toMatch(/cmd/i);
    expect(openerFor('win32').args(HOSTILE)).toEqual(['url.dll,FileProtocolHandler', HOSTILE]);
    expect(openerFor('darwin')).toMatchObject({ command: 'open' });
    expect(openerFor('darwin').args(HOSTILE)).toEqual([HOSTILE]);
    expect(openerFor('linux')).toMatchObject({ command: 'xdg-open' });
  });

  it('passes a URL with & and quotes as one argument, shell off, on Windows', async () => {
    const calls: Spawned[] = [];
    const opened = await openUrl(HOSTILE, {}, { platform: 'win32', spawn: fakeSpawn(calls) });
    expect(opened).toBe('opened');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.command).toBe('rundll32');
    expect(calls[0]!.args.at(-1)).toBe(new URL(HOSTILE).href);
    expect(calls[0]!.options.shell ?? false).toBe(false);
  });
});

describe('which addresses are opened', () => {
  it('http and https only', () => {
    expect(browsableUrl('https://issuer.example/x')?.protocol).toBe('https:');
    expect(browsableUrl('http://issuer.example/x')?.protocol).toBe('http:');
    for (const bad of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'ms-msdt:/id PCWDiagnostic',
      'calc.exe',
      '-n https://x',
      '\\\\server\\share\\x.exe',
      'data:text/html,<script>1</script>',
      '',
    ]) {
      expect(browsableUrl(bad), bad).toBeUndefined();
    }
  });

  it('refuses anything else without starting a process', async () => {
    const calls: Spawned[] = [];
    for (const bad of ['javascript:alert(1)', 'file:///etc/passwd', 'cmd:/c calc']) {
      expect(await openUrl(bad, {}, { platform: 'win32', spawn: fakeSpawn(calls) })).toBe('refused');
    }
    expect(calls).toEqual([]);
  });

  it('says when no opener is there (or PAYOPS_NO_OPEN is set)', async () => {
    const calls: Spawned[] = [];
    expect(
      await openUrl('https://x.example/', {}, { platform: 'linux', spawn: fakeSpawn(calls, 'error') }),
    ).toBe('no-opener');
    expect(await openUrl('https://x.example/', { PAYOPS_NO_OPEN: '1' }, { spawn: fakeSpawn(calls) })).toBe(
      'no-opener',
    );
    expect(await openInBrowser('/tmp/page.html', {}, { platform: 'win32', spawn: fakeSpawn(calls) })).toBe(
      true,
    );
    expect(calls.at(-1)!.command).toBe('rundll32');
  });
});
