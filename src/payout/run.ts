// `payops payout`: input → checked plan → request_ids (from the input, a previous run of the same
// input, or new) journaled before anything is sent → confirmation → send → results. Loaded lazily
// by src/commands/payout.ts.
import { randomUUID } from 'node:crypto';
import type { JournalRecord, RunJournal } from '../bulk/journal.js';
import { stateDir } from '../config/paths.js';
import { assertMayMoveMoney, type ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ExitCode, InputError, UsageError } from '../errors.js';
import { resolveFormat } from '../output/format.js';
import {
  confirmPayouts,
  writePayoutPlan,
  writePayoutResults,
  writePayoutSummary,
} from '../output/payment-card.js';
import { assertOutWritable } from '../pay/out-file.js';
import { loadPayoutCsv, loadPayoutRequest, type PayoutPlan, type PayoutPlanSummary } from './plan.js';
import { type PriorPayout, priorPayouts, reuseRequestIds } from './reuse.js';
import { type PayoutResultRow, sendPayouts } from './send.js';

export interface PayoutFlags {
  request?: string;
  file?: string;
  resume?: boolean;
  force?: boolean;
  /** With resume: this run (from `payops runs resume ID`) rather than the newest unfinished one. */
  runId?: string;
}

export const PAYOUT_OP = 'payout';

/** The gateway and account the money moves at; an in-process sandbox is new on every run. */
export function gatewayIdentity(config: ResolvedConfig): string | undefined {
  if (config.sandbox && (config.sandboxReason === 'flag' || config.sandboxReason === 'unconfigured'))
    return undefined;
  return `${config.baseUrl.replace(/\/+$/, '')}|${config.merchantId}|${config.accountId}`;
}

/** The last `result` record of each line that `keep` accepts, without its journal fields. */
export function resultsByLine(
  records: ReadonlyArray<{ type: string; [k: string]: unknown }>,
  keep: (row: PayoutResultRow) => boolean = () => true,
): Map<number, PayoutResultRow> {
  const byLine = new Map<number, PayoutResultRow>();
  for (const r of records) {
    if (r.type !== 'result') continue;
    const { type: _t, at: _a, ...row } = r as unknown as PayoutResultRow & { type: string; at?: string };
    if (keep(row)) byLine.set(row.line, row);
  }
  return byLine;
}

/** Rows with a definite result (completed or failed) in a run: they are not sent again on --resume. */
export function settledFromRecords(records: readonly JournalRecord[]): Map<number, PayoutResultRow> {
  return resultsByLine(records, (row) => row.outcome === 'completed' || row.outcome === 'failed');
}

export function payoutExitCode(rows: readonly PayoutResultRow[]): number {
  if (rows.some((r) => r.outcome === 'unknown')) return ExitCode.gateway;
  if (rows.some((r) => r.outcome === 'failed')) return ExitCode.someFailed;
  return ExitCode.ok;
}

export async function runPayout(ctx: Context, opts: PayoutFlags): Promise<number> {
  if ((opts.request === undefined) === (opts.file === undefined)) {
    throw new UsageError(
      'give exactly one of --request FILE.json (one payout) or --file FILE.csv (one per row)',
    );
  }
  if (opts.resume && opts.force) {
    throw new UsageError('--resume and --force contradict each other', {
      hint: '--resume continues a run with its request_ids; --force sends new payouts with new ones',
    });
  }
  const plan: PayoutPlan =
    opts.request !== undefined
      ? await loadPayoutRequest(opts.request, ctx.io.cwd)
      : await loadPayoutCsv(opts.file!, ctx.io.cwd);

  await assertOutWritable(ctx.io.cwd, ctx.globals.out);
  const config = await ctx.config();
  assertMayMoveMoney(config, 'payout');
  const state = stateDir(ctx.io.env);
  const identity = gatewayIdentity(config);
  const journalMod = await import('../bulk/journal.js');

  let resumedJournal: RunJournal | undefined;
  let settled = new Map<number, PayoutResultRow>();
  let prior: PriorPayout[] = [];
  let reusedFrom: { runId: string; createdAt: string } | undefined;

  if (opts.resume) {
    const sameInput = identity
      ? await journalMod.findRunsByInput(state, plan.sha256, PAYOUT_OP, identity)
      : [];
    const run = sameInput.find(
      (r) => r.state === 'interrupted' && (opts.runId === undefined || r.runId === opts.runId),
    );
    if (run === undefined) {
      throw new UsageError(`there is no unfinished payout run of ${plan.displayFile} to resume`, {
        hint:
          sameInput.length > 0
            ? `its last run ${sameInput[0]!.runId} finished; run without --resume to send the same request_ids again (the gateway will not pay twice)`
            : 'run it without --resume',
      });
    }
    let records: JournalRecord[];
    if (ctx.globals.dryRun) records = (await journalMod.readRun(state, run.runId)).records;
    else {
      const opened = await journalMod.openRun(state, run.runId);
      resumedJournal = opened.journal;
      records = opened.records;
    }
    prior = priorPayouts(records);
    settled = settledFromRecords(records);
    reusedFrom = { runId: run.runId, createdAt: run.header.createdAt };
  } else if (identity && !opts.force) {
    // The newest run of this file (same path, or same bytes elsewhere) at this gateway and account.
    const last = (await journalMod.listRuns(state)).find(
      (r) =>
        r.header.op === PAYOUT_OP &&
        r.header.gatewayIdentity === identity &&
        (r.header.file === plan.file || r.header.sha256 === plan.sha256),
    );
    if (last) {
      prior = priorPayouts((await journalMod.readRun(state, last.runId)).records);
      reusedFrom = { runId: last.runId, createdAt: last.header.createdAt };
    }
  }

  try {
    const reuse = reuseRequestIds(plan.items, prior, randomUUID, {
      file: plan.displayFile,
      runId: reusedFrom?.runId ?? '',
    });
    if (reuse.conflicts.length > 0) {
      throw new InputError(
        `${plan.displayFile} changed since run ${reusedFrom?.runId}, and sending it could pay someone twice; nothing was sent`,
        reuse.conflicts,
      );
    }
    const toSend = plan.items.filter((item) => !settled.has(item.line));
    const summary: PayoutPlanSummary = {
      plan,
      toSend: toSend.length,
      settled: settled.size,
      profile: config.profile,
      baseUrl: config.baseUrl || '(in-process sandbox)',
      ...(reusedFrom && reuse.reused > 0
        ? { reusedFrom: { ...reusedFrom, count: reuse.reused }, resume: Boolean(opts.resume) }
        : {}),
    };
    const format = resolveFormat(ctx.globals, ctx.io);

    if (ctx.globals.dryRun) {
      await writePayoutPlan(ctx.io, summary, { format, color: ctx.color });
      return ExitCode.ok;
    }
    await confirmPayouts(ctx.io, ctx.globals, summary);

    const client = await ctx.client();
    let journal: RunJournal;
    if (resumedJournal) {
      journal = resumedJournal;
      await journal.append({ type: 'resumed', toSend: toSend.length });
    } else {
      journal = await journalMod.createRun(state, {
        op: PAYOUT_OP,
        file: plan.file,
        sha256: plan.sha256,
        profile: config.profile,
        baseUrl: client.baseUrl,
        merchantId: config.merchantId,
        accountId: config.accountId,
        ...(identity ? { gatewayIdentity: identity } : {}),
        rows: plan.items.length,
        inputKind: plan.kind,
      });
      // Every request_id is on disk before the first payout leaves: a re-run or --resume finds them.
      await journal.append({
        type: 'plan',
        items: plan.items.map((i) => ({
          line: i.line,
          request_id: i.request.request_id,
          from: i.requestIdFrom,
          key: i.key,
        })),
      });
    }

    let sent: PayoutResultRow[] = [];
    let interrupted = false;
    const onSigint = () => {
      if (!interrupted) ctx.log.warn('\ninterrupted: finishing the payouts in flight, then stopping…');
      interrupted = true;
    };
    process.on('SIGINT', onSigint);
    try {
      sent = await sendPayouts(
        {
          client,
          journal,
          concurrency: ctx.globals.concurrency ?? config.concurrency,
          shouldStop: () => interrupted,
        },
        toSend,
      );
    } finally {
      process.off('SIGINT', onSigint);
      const all = [...settled.values(), ...sent];
      const counts = {
        completed: all.filter((r) => r.outcome === 'completed').length,
        failed: all.filter((r) => r.outcome === 'failed').length,
        unknown: all.filter((r) => r.outcome === 'unknown').length,
        unsent: plan.items.length - all.length,
      };
      // Unknown or unsent payouts keep the run open for --resume (same request_ids, so no double pay).
      const terminal = counts.unknown === 0 && counts.unsent === 0 ? 'finished' : 'interrupted';
      await journal.append({ type: terminal, counts }).catch(() => {});
      await journal.close();
    }

    const rows = [...settled.values(), ...sent].sort((a, b) => a.line - b.line);
    await writePayoutResults(ctx.io, rows, {
      format,
      color: ctx.color,
      ...(ctx.globals.out ? { out: ctx.globals.out } : {}),
    });
    const unsent = plan.items.length - rows.length;
    writePayoutSummary(ctx.io, rows, { runId: journal.runId, plan, unsent });
    return interrupted ? ExitCode.interrupted : payoutExitCode(rows);
  } catch (err) {
    await resumedJournal?.close().catch(() => {});
    throw err;
  }
}
