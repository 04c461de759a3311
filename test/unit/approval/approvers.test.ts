// The approvers file: one `payops keys show` line per person; every bad line refused by file:line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  approversPath,
  formatKeyLine,
  loadApprovers,
  parseApprovers,
  parseKeyLine,
} from '../../../src/approval/approvers.js';
import { ConfigError } from '../../../src/errors.js';
import { testKey } from './fixtures.js';

const ana = testKey('Ana Silva');
const bo = testKey('Bo Chen');

function refusal(text: string): string {
  try {
    parseApprovers(text, 'team/approvers.txt');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe('key line', () => {
  it('round-trips: the line keys show prints parses back to the same key', () => {
    const line = formatKeyLine(ana.ref);
    expect(line).toMatch(/^Ana Silva SHA256:[A-Za-z0-9_-]{43} ed25519:[A-Za-z0-9_-]{43}$/);
    expect(parseKeyLine(line)).toEqual(ana.ref);
  });

  it('refuses a fingerprint that is not its key', () => {
    const line = `Ana Silva ${bo.ref.fingerprint} ed25519:${ana.ref.publicKey}`;
    expect(parseKeyLine(line)).toEqual({ problem: expect.stringMatching(/is not the public key's/) });
  });

  it('refuses a name with a control character', () => {
    expect(parseKeyLine(formatKeyLine({ ...ana.ref, name: 'Ana\u202eSilva' }))).toEqual({
      problem: expect.stringMatching(/control character/),
    });
  });
});

describe('parseApprovers', () => {
  it('reads lines, skipping comments and blank lines', () => {
    const text = `# finance team\n\n${formatKeyLine(ana.ref)}\r\n  # Bo, since March\n${formatKeyLine(bo.ref)}\n`;
    expect(parseApprovers(text, 'a.txt')).toEqual([ana.ref, bo.ref]);
  });

  it('refuses a bad line naming the file and line', () => {
    expect(refusal(`# ok\n${formatKeyLine(ana.ref)}\nBo Chen SHA256:abc ed25519:def\n`)).toMatch(
      /^approvers file team\/approvers\.txt:3: expected "NAME SHA256/,
    );
  });

  it('refuses a key listed twice, naming both lines', () => {
    const text = `${formatKeyLine(ana.ref)}\n${formatKeyLine(bo.ref)}\n${formatKeyLine({ ...ana.ref, name: 'A. Silva' })}\n`;
    expect(refusal(text)).toMatch(/approvers\.txt:3: the key SHA256:\S+ is listed already on line 1/);
  });

  it('refuses a line whose fingerprint does not match its key', () => {
    expect(refusal(`Ana Silva ${bo.ref.fingerprint} ed25519:${ana.ref.publicKey}\n`)).toMatch(
      /approvers\.txt:1: the fingerprint/,
    );
  });

  it('loadApprovers refuses a missing or empty file (exit 4) with the config hint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payops-approvers-'));
    await expect(loadApprovers(join(dir, 'none.txt'))).rejects.toThrow(/no such file/);
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '# nobody yet\n');
    await expect(loadApprovers(empty)).rejects.toThrow(/lists no one/);
    const ok = join(dir, 'ok.txt');
    writeFileSync(ok, `${formatKeyLine(ana.ref)}\n`);
    await expect(loadApprovers(ok)).resolves.toEqual([ana.ref]);
  });
});

describe('approversPath', () => {
  it('absolute as given; relative from the config folder; none refused with the config set hint', () => {
    const env = { PAYOPS_HOME: '/home/ana/payops' };
    expect(approversPath('/srv/team/approvers.txt', env, 'default')).toBe('/srv/team/approvers.txt');
    expect(approversPath('team/approvers.txt', env, 'default')).toBe('/home/ana/payops/team/approvers.txt');
    expect(() => approversPath(undefined, env, 'prod')).toThrow(/profile "prod" names no approvers file/);
  });
});
