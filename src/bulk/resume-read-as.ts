// --resume reads the file as the run it continues did (issue 24): the printed resume command
// carries no --encoding, --sheet or --refund-reason, and must work as printed. Which run that is,
// for reading only (runToResume), and a note when flags given now are overruled (noteReadAsOfRun).
import { existsSync } from 'node:fs';
import { stateDir } from '../config/paths.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { gatewayIdentity } from '../lifecycle/identity.js';
import { findRunsAt, type RunInfo } from '../lifecycle/read.js';
import { sha256File } from '../tabular/csv-reader.js';
import type { BulkFlags } from './flags.js';
import { type ReadAs, readAsOf } from './read-as.js';

/**
 * The unfinished run `--resume` would continue for this file, to read the file as that run did: the
 * newest of this operation at this gateway made from the same bytes; else from the same path unless
 * the file changed since and flags now say how to read it (re-saved as UTF-8, say). Only how the
 * file is read is taken from it; which run is resumed is still decided by what the rows mean.
 */
export async function runToResume(
  ctx: Context,
  op: BatchOperation,
  config: ResolvedConfig,
  path: string,
  flags: BulkFlags,
): Promise<RunInfo | undefined> {
  const open = (await findRunsAt(stateDir(ctx.io.env), op, gatewayIdentity(config))).filter(
    (r) => r.state !== 'finished' && r.header.readAs !== undefined,
  );
  if (open.length === 0 || !existsSync(path)) return undefined;
  let sha: string;
  try {
    sha = await sha256File(path);
  } catch {
    return undefined; // unreadable: reading it for the plan says why
  }
  const same = open.find((r) => r.header.sha256 === sha);
  if (same) return same;
  const given =
    flags.encoding !== undefined ||
    flags.decimalComma ||
    flags.refundReason !== undefined ||
    flags.includeHidden ||
    flags.skipHidden ||
    flags.columns !== undefined ||
    flags.headerRow !== undefined ||
    flags.sheet !== undefined;
  return given ? undefined : open.find((r) => r.header.file === path);
}

/** Flags that would read the file otherwise than its run did are overruled: say so, once. */
export function noteReadAsOfRun(ctx: Context, run: RunInfo, given: ReadAs, sheet: string | undefined): void {
  const was = readAsOf(run.header.readAs);
  const differs: string[] = [];
  if (given.encoding !== 'utf-8' && given.encoding !== was.encoding) differs.push('--encoding');
  if (given.why === '--decimal-comma' && was.mark !== ',') differs.push('--decimal-comma');
  if (given.refundReason !== undefined && given.refundReason !== was.refundReason)
    differs.push('--refund-reason');
  if (given.hidden !== undefined && given.hidden !== was.hidden) differs.push(`--${given.hidden}-hidden`);
  if (sheet !== undefined && sheet !== run.header.sheet) differs.push('--sheet');
  if (given.columnsFrom === '--columns' && JSON.stringify(given.columns) !== JSON.stringify(was.columns))
    differs.push('--columns');
  if (given.headerRow !== undefined && given.headerRow !== was.headerRow) differs.push('--header-row');
  if (differs.length === 0) return;
  ctx.log.warn(
    `payops: --resume reads the file as run ${run.runId} did (encoding ${was.encoding}${run.header.sheet ? `, sheet ${run.header.sheet}` : ''}); ${differs.join(', ')} given now ${differs.length === 1 ? 'is' : 'are'} not used`,
  );
}
