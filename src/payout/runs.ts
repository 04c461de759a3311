// Payout runs by id, for `payops runs show|resume ID`: results regenerated from the journal (nothing
// sent), and resumption of an unfinished run from its input file.

import { stateDir } from '../config/paths.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { chainWarning } from '../lifecycle/chain.js';
import { readRun } from '../lifecycle/read.js';
import { resolveFormat } from '../output/format.js';
import { stdoutColor } from '../output/stdout-color.js';
import { tableReadAsOf } from '../tabular/read-as.js';
import { writePayoutResults } from './payout-view.js';
import { type PayoutRecord, parsePayoutRecord } from './records.js';
import { PAYOUT_OP, payoutExitCode, resultsByLine, runPayout } from './run-payout.js';
import type { PayoutResultRow } from './send.js';

/** The last result of each line, in line order. */
export function latestResults(records: readonly PayoutRecord[]): PayoutResultRow[] {
  return [...resultsByLine(records).values()].sort((a, b) => a.line - b.line);
}

async function payoutHeader(ctx: Context, runId: string, chain: 'refuse' | 'report') {
  const read = await readRun(stateDir(ctx.io.env), runId, parsePayoutRecord, { chain });
  if (read.header.op !== PAYOUT_OP)
    throw new UsageError(`run ${runId} is a ${read.header.op} run, not a payout run`);
  return read;
}

/** `payops runs show ID` for a payout run: its results as recorded; sends nothing. */
export async function showPayoutRun(ctx: Context, runId: string): Promise<number> {
  // Shown even when its chain is broken (resume refuses it), with a warning first.
  const { records, chain } = await payoutHeader(ctx, runId, 'report');
  const warning = chainWarning(runId, chain);
  if (warning) ctx.log.warn(warning);
  const rows = latestResults(records);
  await writePayoutResults(ctx.io, rows, {
    format: resolveFormat(ctx.globals, ctx.io),
    color: stdoutColor(ctx),
    ...(ctx.globals.out ? { out: ctx.globals.out } : {}),
  });
  return payoutExitCode(rows);
}

/** `payops runs resume ID` for a payout run: `payops payout --file|--request FILE --resume` on that run. */
export async function resumePayoutRun(ctx: Context, runId: string): Promise<number> {
  const { header } = await payoutHeader(ctx, runId, 'refuse');
  if (header.file === undefined) throw new UsageError(`run ${runId} does not name its input file`);
  const input = header.inputKind === 'json' ? { request: header.file } : { file: header.file };
  // Read as the run read it: its decimal mark and encoding.
  const readAs = header.readAs === undefined ? undefined : tableReadAsOf(header.readAs);
  const read = readAs ? { decimalComma: readAs.mark === ',', encoding: readAs.encoding } : {};
  return runPayout(ctx, { ...input, ...read, resume: true, runId });
}
