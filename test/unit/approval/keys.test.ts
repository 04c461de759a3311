// payops keys create|show in process: the key file (mode 0600, encrypted with a passphrase when one
// is given), the one line shown, and a passphrase or private key never in any output.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseKeyLine } from '../../../src/approval/approvers.js';
import { keyFilePath, loadSigningKey } from '../../../src/approval/keys.js';
import { canonicalJson, signText, verifyText } from '../../../src/approval/plan-doc.js';
import type { Invocation } from '../../../src/io.js';
import { type FakeIo, fakeIo, runMain } from '../../helpers/in-process.js';

const PASS = 'correct horse battery staple';

function invocation(io: FakeIo): Invocation {
  const silent = { info() {}, warn() {}, verbose() {}, debug() {} };
  return { io, globals: {}, log: silent, addSecret() {}, onClose() {}, noteMoneyMoving() {} };
}

describe('payops keys', () => {
  it('create writes a 0600 key file and prints the keys show line; show prints it again', async () => {
    const io = fakeIo();
    const made = await runMain(['keys', 'create', '--name', 'Ana Silva'], io);
    expect(made.code, made.stderr).toBe(0);
    const ref = parseKeyLine(made.stdout.trim());
    expect(ref).toMatchObject({ name: 'Ana Silva' });
    const path = keyFilePath(io.env);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(made.stderr).toMatch(/no passphrase/);
    expect(made.stdout + made.stderr).not.toMatch(/PRIVATE KEY/);
    const shown = await runMain(['keys', 'show'], fakeIo({ home: io.home }));
    expect(shown.stdout).toBe(made.stdout);
    // The stored private key is the shown public key's.
    const key = await loadSigningKey(invocation(fakeIo({ home: io.home })));
    expect(verifyText(ref as never, 'x', signText(key.privateKey, 'x'))).toBe(true);
  });

  it('refuses to overwrite a key without --force; --force makes a new one', async () => {
    const io = fakeIo();
    const first = await runMain(['keys', 'create', '--name', 'Ana'], io);
    const again = await runMain(['keys', 'create', '--name', 'Ana'], fakeIo({ home: io.home }));
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/you have a key already .*SHA256:/);
    const forced = await runMain(['keys', 'create', '--name', 'Ana', '--force'], fakeIo({ home: io.home }));
    expect(forced.code).toBe(0);
    expect(forced.stdout).not.toBe(first.stdout);
  });

  it('with PAYOPS_KEY_PASSPHRASE the key is stored encrypted, opens only with it, never shown', async () => {
    const io = fakeIo({ env: { PAYOPS_KEY_PASSPHRASE: PASS } });
    const made = await runMain(['keys', 'create', '--name', 'Cron Runner'], io);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toMatch(/protected by your passphrase/);
    const stored = readFileSync(keyFilePath(io.env), 'utf8');
    expect(stored).toMatch(/ENCRYPTED PRIVATE KEY/);
    expect(stored).not.toContain(PASS);
    expect(made.stdout + made.stderr).not.toContain(PASS);

    const withPass = await loadSigningKey(
      invocation(fakeIo({ home: io.home, env: { PAYOPS_KEY_PASSPHRASE: PASS } })),
    );
    expect(withPass.ref.name).toBe('Cron Runner');
    const wrong = loadSigningKey(
      invocation(fakeIo({ home: io.home, env: { PAYOPS_KEY_PASSPHRASE: 'nope' } })),
    );
    await expect(wrong).rejects.toThrow(/^the passphrase does not open your key$/);
    const none = loadSigningKey(
      invocation(fakeIo({ home: io.home, env: { PAYOPS_KEY_PASSPHRASE: undefined } })),
    );
    await expect(none).rejects.toThrow(/no terminal to ask it at/);
    // keys show needs no passphrase.
    expect((await runMain(['keys', 'show'], fakeIo({ home: io.home }))).code).toBe(0);
  });

  it('--passphrase without a terminal and without the variable is refused; nothing is written', async () => {
    const io = fakeIo();
    const r = await runMain(['keys', 'create', '--name', 'Ana', '--passphrase'], io);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/PAYOPS_KEY_PASSPHRASE/);
    expect((await runMain(['keys', 'show'], fakeIo({ home: io.home }))).code).toBe(4);
  });

  it('refuses a name with a control character, and show without a key names keys create', async () => {
    const bad = await runMain(['keys', 'create', '--name', 'Ana\u001b[31m']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/control character/);
    const none = await runMain(['keys', 'show']);
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/payops keys create --name/);
  });

  it('a key file whose private key is not its public key is refused', async () => {
    const a = fakeIo();
    const b = fakeIo();
    await runMain(['keys', 'create', '--name', 'A'], a);
    await runMain(['keys', 'create', '--name', 'B'], b);
    const fileA = JSON.parse(readFileSync(keyFilePath(a.env), 'utf8')) as Record<string, string>;
    const fileB = JSON.parse(readFileSync(keyFilePath(b.env), 'utf8')) as Record<string, string>;
    writeFileSync(keyFilePath(a.env), canonicalJson({ ...fileA, privateKey: fileB.privateKey }));
    await expect(loadSigningKey(invocation(fakeIo({ home: a.home })))).rejects.toThrow(
      /is not its public key/,
    );
  });
});
