// `payops runs verify ID` for a refund run: what the gateway shows now for every row the run sent,
// against what the run reported. Read-only at the gateway (refund search / query) and on disk (the
// journal is not changed). It exists because a gateway may apply a lost request later than the
// settle time: the run cannot see that, a check made afterwards can — a row refunded twice is
// reported `duplicated` here, and a row reported done that the gateway does not show is named.
import { stateDir } from '../../config/paths.js';
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { ENDPOINTS } from '../../gateway/endpoints.js';
import { chainWarning } from '../../lifecycle/chain.js';
import { readRun } from '../../lifecycle/read.js';
import type { RunHeader } from '../../lifecycle/records.js';
import { wireElement } from '../engine/chunk.js';
import { reconcile } from '../engine/reconcile.js';
import { parseBulkRecord } from '../engine/records.js';
import { foldRecords, sendsOf } from '../engine/run-state.js';
import { OPERATIONS } from '../operations.js';
import type { RowOutcome } from '../types.js';
import { exitCodeForTotals } from './results.js';
import { replayToSink } from './show.js';

/** What the gateway shows for a row, against what the run reported: the row to print, and a finding. */
export function compare(
  reported: RowOutcome,
  now: RowOutcome,
  done: string,
): { row: RowOutcome; finding?: string } {
  if (now.outcome === 'duplicated') {
    return reported.outcome === 'duplicated' ? { row: now } : { row: now, finding: now.detail };
  }
  const applied = now.outcome === 'succeeded';
  if (reported.outcome === 'succeeded' && !applied) {
    return {
      row: {
        ...reported,
        outcome: 'unknown',
        detail: `reported ${done}, but the gateway does not show it now: ${now.detail}`,
      },
      finding: `reported ${done}, but the gateway does not show it now (${now.detail})`,
    };
  }
  if (reported.outcome !== 'succeeded' && applied) {
    return {
      row: {
        ...reported,
        detail: `${reported.detail} — but the gateway shows it ${done} now: ${now.detail}`,
      },
      finding: `reported ${reported.outcome}, but the gateway shows it ${done} (${now.detail}); resume the run to record it`,
    };
  }
  return { row: reported };
}

export async function verifyBulkRun(ctx: Context, header: RunHeader): Promise<number> {
  const { runId } = header;
  const op = header.op as BatchOperation;
  if (!OPERATIONS[op].verifiable) {
    // A capture, cancel or review moves an order from one state to the next: it cannot be applied
    // twice, and the order's state now may have moved on for other reasons.
    ctx.log.info(`run ${runId} is a ${op} run: an order's ${op} cannot be applied twice; nothing to verify`);
    return ExitCode.ok;
  }
  // Read-only: a broken chain is said, and the gateway asked all the same.
  const { records, chain } = await readRun(stateDir(ctx.io.env), runId, parseBulkRecord, { chain: 'report' });
  const warning = chainWarning(runId, chain);
  if (warning) ctx.log.warn(warning);
  const folded = foldRecords(records);
  const before = folded.preflight?.before;
  if (before === undefined) {
    ctx.log.warn(
      `payops: run ${runId} was made before payops asked the gateway first: refunds it made cannot be told from older ones, so doubles cannot be counted; each row is checked for a refund since it was sent`,
    );
  }
  const client = await ctx.client();
  const findings: string[] = [];
  const claimed = new Set<string>();
  const done = OPERATIONS[op].words.done;
  let checked = 0;
  let unchecked = 0;
  let firstProblem: string | undefined;
  // Chunks as the run made them (their journal states), each checked with one look-up.
  const totals = await replayToSink(ctx, header, folded, async (chunk, reported, label) => {
    const journaled = folded.chunks.get(chunk.index);
    const sent = chunk.rows.flatMap((row, i) => {
      const o = reported[i]!;
      // Rows never sent by this run, and rows done before it: nothing of this run's to check.
      if (o.outcome === 'already_done' || (o.outcome === 'not_sent' && sendsOf(journaled, row.line) === 0))
        return [];
      return [{ line: row.line, element: wireElement(op, row), sentAt: header.createdAt }];
    });
    const now = new Map(
      (await reconcile(op, client, sent, { claimed, ...(before ? { before } : {}) })).map((o) => [o.line, o]),
    );
    return chunk.rows.map((row, i) => {
      const at = now.get(row.line);
      const o = reported[i]!;
      if (at === undefined) return o;
      // A look-up that failed checked nothing: said, never counted as "as reported".
      if (at.outcome === 'unknown') {
        unchecked++;
        firstProblem ??= /could not be asked \((.*)\);/.exec(at.detail)?.[1] ?? at.detail;
        return o;
      }
      checked++;
      const c = compare(o, at, done);
      if (c.finding) findings.push(`${label}:${row.line} ${row.transaction_id}: ${c.finding}`);
      return c.row;
    });
  });
  const lookups = Math.ceil(checked / ENDPOINTS[OPERATIONS[op].reconcile.by].limit);
  ctx.log.info(
    `  verified at the gateway: ${checked} row${checked === 1 ? '' : 's'} this run sent (about ${lookups} look-up${lookups === 1 ? '' : 's'}); ${findings.length === 0 ? 'every one as reported' : `${findings.length} not as reported:`}`,
  );
  for (const f of findings.slice(0, 50)) ctx.log.info(`    ${f}`);
  if (findings.length > 50) ctx.log.info(`    … and ${findings.length - 50} more (see the results)`);
  if (unchecked > 0) {
    ctx.log.warn(
      `payops: ${unchecked} row${unchecked === 1 ? '' : 's'} could not be checked: the gateway could not be asked (${firstProblem}); run \`payops runs verify ${runId}\` again later`,
    );
  }
  return findings.length > 0 || unchecked > 0 ? ExitCode.gateway : exitCodeForTotals(totals);
}
