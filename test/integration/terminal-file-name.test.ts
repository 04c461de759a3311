// (review of issue 13, item 10) A valid input whose file name carries terminal escape sequences: the
// plan and summary lines name the file, and must show it escaped like every other quoted text.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/run-cli.js';

// ESC, BEL and C1 controls: a terminal acts on them instead of printing them.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

it('the plan line of a dry run does not echo escape sequences from the file name', async () => {
  const dir = tempDir();
  const name = 'evil\u001b]0;PWNED\u0007\u001b[2J.csv';
  writeFileSync(
    join(dir, name),
    'transaction_id,order_no,currency,amount,refund_amount,refund_reason\nT1,O1,USD,10.00,1.00,x\n',
  );
  const r = await runCli(['refund', '--sandbox', '--file', name, '--dry-run'], { cwd: dir });
  expect(r.stderr).toContain('evil');
  expect(r.stderr).not.toMatch(CONTROL);
});
