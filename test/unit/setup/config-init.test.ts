// `payops config init` driven through fake terminal streams: the prompts read keystrokes from
// stdin and draw on stderr, and the sign key typed never appears in what they draw.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../../src/context.js';
import type { Io } from '../../../src/io.js';
import { runConfigInit } from '../../../src/setup/config-commands.js';

function fakeTerminal(env: NodeJS.ProcessEnv) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  // Like process.stderr, never ended by a prompt that finishes (inquirer pipes into it).
  stderr.end = (() => stderr) as never;
  let drawn = '';
  stderr.on('data', (d: Buffer) => {
    drawn += d.toString();
  });
  const io = { stdin, stdout, stderr, env, cwd: process.cwd() } as unknown as Io;
  return { io, stdin, drawn: () => drawn };
}

const tick = () => new Promise((r) => setTimeout(r, 100));

/** Waits until the prompt whose message starts with `text` has been drawn (a loaded machine is slow). */
async function promptShown(drawn: () => string, text: string): Promise<void> {
  for (let waited = 0; !drawn().includes(text); waited += 10) {
    if (waited > 30_000) throw new Error(`the prompt "${text}" never appeared`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('config init', () => {
  // Issue 15: the sandbox is offered first, the profile is tested (here against a closed loopback
  // port: the gateway does not answer, so payops asks whether to save anyway), and making it the
  // current profile is asked, not done.
  it('asks for each value, masks the sign key, tests the profile, and saves it as current when told', async () => {
    const home = mkdtempSync(join(tmpdir(), 'payops-init-'));
    const term = fakeTerminal({ PAYOPS_HOME: home });
    const ctx = createContext(term.io, {});
    const done = runConfigInit(ctx);
    const answers: Array<[prompt: string, answer: string]> = [
      ['Profile name', 'ops'],
      ['built-in sandbox', 'n'],
      ['Gateway address', 'http://127.0.0.1:9'],
      ['Merchant id', '800001'],
      ['Account id', '800001001'],
      ['Sign key', 'typed-secret-key-1'],
      ['Read-only profile', 'n'],
      ['Save the profile anyway', 'y'],
      ['current profile', 'y'],
    ];
    // Text and Enter as separate keystrokes, as a person types them, each once its prompt is shown.
    for (const [prompt, answer] of answers) {
      await promptShown(term.drawn, prompt);
      await tick();
      term.stdin.write(answer);
      await tick();
      term.stdin.write('\r');
    }
    await expect(done).resolves.toBe(0);
    const stored = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));
    expect(stored).toEqual({
      current: 'ops',
      profiles: {
        ops: {
          base_url: 'http://127.0.0.1:9',
          merchant_id: '800001',
          account_id: '800001001',
          sign_key: 'typed-secret-key-1',
          read_only: false,
        },
      },
    });
    expect(term.drawn()).not.toContain('typed-secret-key-1');
    // The mask, one star per character typed.
    expect(term.drawn().replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')).toContain(
      '*'.repeat('typed-secret-key-1'.length),
    );
  }, 90_000);
});
