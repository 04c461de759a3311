// A run's life, written once for bulk operations and payouts: the input lock, the journal created
// (with its input snapshot) or reopened (with a `resumed` record), and the terminal record that ends
// it. Ctrl-C is interrupt.ts; which run to work on is decide.ts.
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fsReason, LocalWriteError } from '../errors.js';
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
  return lockNamed(
    stateDir,
    'input',
    `${input.key}|${input.op}`,
    input.gatewayIdentity,
    `${label} (${input.op})`,
  );
}

/**
 * One sending run per operation and gateway at a time under this PAYOPS_HOME, whatever its file.
 * Two files that share orders (a.csv, and a b.csv holding some of its rows) have two input locks:
 * run side by side with --skip-done, each found the other's rows not yet done and sent them too
 * (4,000 shared orders: 3,900 refunded twice). Taken after the input lock, so that the same file
 * twice is still refused by that one, with its own words.
 */
export async function lockOperation(
  stateDir: string,
  op: string,
  gatewayIdentity: string,
): Promise<() => Promise<void>> {
  return lockNamed(
    stateDir,
    'op',
    `every input|${op}`,
    gatewayIdentity,
    `sending ${op} requests to this gateway`,
  );
}

/** The lock file `.<kind>-<hash of what|gateway>.lock` in the runs folder; resolves to its release. */
async function lockNamed(
  stateDir: string,
  kind: 'input' | 'op',
  what: string,
  gatewayIdentity: string,
  label: string,
): Promise<() => Promise<void>> {
  const key = createHash('sha256')
    .update(`${what}|${normaliseIdentity(gatewayIdentity)}`)
    .digest('hex')
    .slice(0, 24);
  // The first write of a run, before anything is sent: an unwritable PAYOPS_HOME stops here (exit 4).
  return writingState(stateDir, async () => {
    await mkdir(runsDir(stateDir), { recursive: true, mode: 0o700 });
    return acquireLock(join(runsDir(stateDir), `.${kind}-${key}.lock`), label);
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
    // A run folder left without its input copy is not a run (bulk/run-bulk.ts): nothing was sent.
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

/**
 * The terminal record, then close and unlock. Rejects when the journal does not hold everything the
 * run appended (this record, or an earlier lazy one such as a chunk's outcomes): a LocalWriteError
 * (exit 4), thrown by the caller once it has shown the run's results, so the user learns both what
 * happened and that the journal does not say it all — a resume asks the gateway about those rows.
 */
export async function endRun(journal: RunJournal<TerminalRecord>, terminal: TerminalRecord): Promise<void> {
  const appended = await journal.append(terminal).then(
    () => undefined,
    (err: unknown) => err,
  );
  await journal.close();
  const failure = journal.failure ?? appended;
  if (failure !== undefined) throw incompleteJournal(failure, journal);
}

/** A failed write at a run's end, said as what it means for this run. */
function incompleteJournal(failure: unknown, journal: RunJournal<TerminalRecord>): unknown {
  if (!(failure instanceof LocalWriteError)) return failure;
  return new LocalWriteError(
    `cannot write the run journal in ${journal.dir}: ${fsReason(failure.cause)}; the results shown may be missing from it, and run ${journal.runId} is not recorded as ended`,
    {
      cause: failure.cause,
      hint: `make room on its disk or make the folder writable, then \`payops runs resume ${journal.runId}\`: rows without a result in the journal are asked at the gateway first, never sent twice`,
    },
  );
}
