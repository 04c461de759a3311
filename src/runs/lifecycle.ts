// A run's life, written once for bulk operations and payouts: the input lock, the journal created
// (with its input snapshot) or reopened (with a `resumed` record), and the terminal record that ends
// it. Ctrl-C is interrupt.ts; which run to work on is decide.ts.
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { normaliseIdentity } from './identity.js';
import { createRun, openRun, type RunJournal } from './journal.js';
import { acquireLock } from './lock.js';
import { runsDir, writingState } from './paths.js';
import type { JournalRecord, NewRunHeader, RecordParser, ResumedRecord, TerminalRecord } from './records.js';
import type { StagedInput } from './snapshot.js';

/**
 * Held from the duplicate check to the end of the run: one process per input, operation and
 * gateway, so that two payops started on the same file cannot both find "no earlier run" and both
 * send. `key` names the input: what it means where that is known (bulk runs: its content key, so
 * two copies of one file saved differently wait for each other too), else its SHA-256; the gateway
 * by its normal form (identity.ts), so two spellings of one URL share the lock. Resolves to the
 * release function.
 */
export async function lockInput(
  stateDir: string,
  input: { key: string; op: string; gatewayIdentity: string },
  label: string,
): Promise<() => Promise<void>> {
  const key = createHash('sha256')
    .update(`${input.key}|${input.op}|${normaliseIdentity(input.gatewayIdentity)}`)
    .digest('hex')
    .slice(0, 24);
  // The first write of a run, before anything is sent: an unwritable PAYOPS_HOME stops here (exit 4).
  return writingState(stateDir, async () => {
    await mkdir(runsDir(stateDir), { recursive: true, mode: 0o700 });
    return acquireLock(join(runsDir(stateDir), `.input-${key}.lock`), `${label} (${input.op})`);
  });
}

/** A new run: its journal with the header (durable), and the staged input moved into its folder. */
export async function beginRun<W extends JournalRecord>(
  stateDir: string,
  header: NewRunHeader,
  opts: { runId?: string; input?: StagedInput } = {},
): Promise<RunJournal<W>> {
  try {
    const journal = await createRun<W>(stateDir, header, opts.runId ? { runId: opts.runId } : {});
    // A run folder left without its input copy is not a run (bulk/run.ts): nothing was sent.
    await opts.input?.commit(journal.dir).catch(async (err: unknown) => {
      await journal.close();
      throw err;
    });
    return journal;
  } finally {
    await opts.input?.discard();
  }
}

/** An earlier run taken up again: its records as `parse` reads them, and a `resumed` record (durable). */
export async function resumeRunJournal<R, W extends JournalRecord>(
  stateDir: string,
  runId: string,
  parse: RecordParser<R>,
  resumed: Omit<ResumedRecord, 'type'>,
): Promise<{ journal: RunJournal<W | ResumedRecord>; records: R[] }> {
  const opened = await openRun<R, W | ResumedRecord>(stateDir, runId, parse);
  try {
    await opened.journal.append({ type: 'resumed', ...resumed });
  } catch (err) {
    await opened.journal.close();
    throw err;
  }
  return { journal: opened.journal, records: opened.records };
}

/** The terminal record (best effort: the journal may be what failed), then close and unlock. */
export async function endRun(journal: RunJournal<TerminalRecord>, terminal: TerminalRecord): Promise<void> {
  await journal.append(terminal).catch(() => {});
  await journal.close();
}
