// A group one letter from a command (`refunds` / `refund`) suggests that command, not a flag.
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { fakeIo } from '../../helpers/in-process.js';

async function run(argv: string[]) {
  const io = fakeIo();
  const code = await main(argv, io);
  return { code, stderr: io.stderr.text };
}

describe('suggestions between near commands', () => {
  it('`payops refunds --file x` suggests `payops refund`, not --profile', async () => {
    const r = await run(['refunds', '--file', 'x.csv']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Did you mean `payops refund --file');
    expect(r.stderr).not.toContain('--profile');
  });

  it('`payops refunds x.csv` suggests `payops refund x.csv`', async () => {
    const r = await run(['refunds', 'x.csv']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Did you mean `payops refund x.csv`');
  });

  it("a typo of the group's own command keeps commander's suggestion", async () => {
    const r = await run(['refunds', 'serch']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Did you mean search?');
  });
});
