// What `payops call` sent to a path that can move money, kept in <state>/calls.jsonl: one `sent`
// line, durable before the request leaves, and one `answer` (or `lost`) line after. A raw call is
// not a run: it is never retried, resumed or reconciled, so it has no run journal; this record is
// what says afterwards what was sent, when, to which gateway and account, and what came back.
// Bodies are recorded as logs show them (src/redact.ts): card numbers masked, security codes and
// secrets left out. The file is private (0600 in a 0700 folder), like the run journals.
import { randomBytes } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { stateDir } from '../config/paths.js';
import { writingState } from '../lifecycle/paths.js';
import { redactBody } from '../redact.js';

export const CALLS_FILE = 'calls.jsonl';

export interface CallSent {
  method: string;
  url: string;
  merchantId: string;
  accountId: string;
  body: Record<string, unknown>;
}

export type CallAnswer =
  | {
      type: 'answer';
      http_status: number;
      return_status?: unknown;
      signature: string;
      /** Per-order results of a batch answer: how many were refused (status 0) or unclear. */
      orders?: { total: number; refused: number; unclear: number };
    }
  | { type: 'lost'; reason: string };

export interface CallRecord {
  /** Where the lines went. */
  file: string;
  /** Appends the answer (or the loss) of the request. */
  answer(a: CallAnswer): Promise<void>;
}

async function append(file: string, line: Record<string, unknown>): Promise<void> {
  const fh = await open(file, 'a', 0o600);
  try {
    await fh.appendFile(`${JSON.stringify(line)}\n`);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

/**
 * Writes the `sent` line and returns how to add the answer. A failure to write it is LocalWriteError
 * (exit 4, "nothing was sent"): the request does not leave unrecorded.
 */
export async function recordCall(env: NodeJS.ProcessEnv, sent: CallSent): Promise<CallRecord> {
  const dir = stateDir(env);
  const file = join(dir, CALLS_FILE);
  const id = randomBytes(6).toString('hex');
  await writingState(dir, async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await append(file, {
      type: 'sent',
      id,
      at: new Date().toISOString(),
      method: sent.method,
      url: sent.url,
      merchant_id: sent.merchantId,
      account_id: sent.accountId,
      body: redactBody(sent.body),
    });
  });
  return {
    file,
    answer: (a) => append(file, { id, at: new Date().toISOString(), ...a }),
  };
}
