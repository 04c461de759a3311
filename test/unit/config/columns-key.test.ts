// A profile's columns.<command> mapping (issue 26 item 4), as a new user met it (issue 27's trial):
// a typo or a header given twice was stored and failed on every later file; the refusal of a file
// did not say the mapping came from the profile; and nothing removed it. Now `config set` checks
// the mapping against the columns its command reads, a refusal names the profile's key and the
// way out, and `config unset` removes a key. In-process through main(argv, io).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeIo, runMain } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/run-cli.js';

const stored = (home: string) => JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));

describe("the profile's columns.<command>", () => {
  it('config set refuses a column the command does not read, and one header given to two columns', async () => {
    for (const [key, value, why] of [
      ['columns.refund', 'transacton_id=Txn Ref', /"transacton_id" is not a column this command reads/],
      ['columns.refund', 'amount=Amount,refund_amount=Amount', /mapped to both amount and refund_amount/],
      ['columns.query', 'currency=Ccy', /"currency" is not a column this command reads/],
    ] as const) {
      const io = fakeIo();
      const r = await runMain(['config', 'set', key, value], io);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(why);
    }
    const ok = fakeIo();
    expect(
      (await runMain(['config', 'set', 'columns.payout', 'beneficiary.bank_details.iban=IBAN'], ok)).code,
    ).toBe(0);
  });

  it('a file it does not fit is refused naming the profile key and `config unset`, which removes it', async () => {
    const io = fakeIo();
    expect((await runMain(['config', 'set', 'columns.refund', 'transaction_id=Txn Ref'], io)).code).toBe(0);
    const dir = tempDir();
    const file = join(dir, 'plain.csv');
    writeFileSync(
      file,
      'transaction_id,order_no,currency,amount,refund_amount,refund_reason\nT1,O1,USD,10.00,1.00,goodwill\n',
    );
    const refused = await runMain(['--sandbox', 'refund', file, '--dry-run'], fakeIo({ home: io.home }));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("mapped by the profile's columns.refund to the header");
    expect(refused.stderr).toContain('payops config unset columns.refund');

    const unset = await runMain(['config', 'unset', 'columns.refund'], fakeIo({ home: io.home }));
    expect(unset.code, unset.stderr).toBe(0);
    expect(stored(io.home).profiles.default['columns.refund']).toBeUndefined();
    const again = await runMain(['config', 'unset', 'columns.refund'], fakeIo({ home: io.home }));
    expect(again.stderr).toContain('was not set');
  });
});
