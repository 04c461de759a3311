// Issue 27: `payops query T0000000005` said "1 order not found" and then "0 orders found", and did
// not give the command that looks the value up as a transaction id. One count, and the exact
// command, last. In-process through main(argv, io) against the in-process sandbox.
import { describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';

describe('query: an order number not found', () => {
  it('counts once, and ends with the exact --transaction-id command', async () => {
    const r = await runMain(['--sandbox', 'query', 'T0000000005'], fakeIo());
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toContain('  order_no T0000000005');
    expect(r.stderr).not.toMatch(/\d+ orders? not found:/);
    // The list's title and the one count line; no second count.
    expect(
      lines.filter((l) => /found/.test(l) && !l.startsWith('hint:')),
      r.stderr,
    ).toEqual(['not found:', '0 orders found, 1 not found']);
    expect(lines).toContain('0 orders found, 1 not found');
    expect(lines.at(-1)).toBe(
      'hint: looked up as an order number; as a transaction id: payops --sandbox query --transaction-id T0000000005',
    );
  });
});
