// `payops payout`: input → checked plan → request_ids (from the input, a previous run of the same
// input, or new) journaled before anything is sent → confirmation → send → results. Loaded lazily
// by src/commands/payout.ts.
import { randomUUID } from 'node:crypto';
import { stateDir } from '../config/paths.js';
import { assertMayMoveMoney } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ExitCode, InputError, UsageError } from '../errors.js';
import { resolveFormat } from '../output/format.js';
import {
  confirmPayouts,
  writePayoutPlan,
  writePayoutResults,
  writePayoutSummary,
} from '../output/payment-card.js';
import { checkOutFile } from '../output/safe-file.js';
import { decidePayoutRun } from '../runs/decide.js';
import { payoutGatewayIdentity, sameGateway } from '../runs/identity.js';
import { whileInterruptible } from '../runs/interrupt.js';
import { openRun, type RunJournal } from '../runs/journal.js';
import { beginRun, endRun, lockInput } from '../runs/lifecycle.js';
import { listRuns, readRun } from '../runs/read.js';
import { loadPayoutCsv, loadPayoutRequest, type PayoutPlan, type PayoutPlanSummary } from './plan.js';
import { type PayoutJournalRecord, type PayoutRecord, parsePayoutRecord } from './records.js';
import { type PriorPayout, priorPayouts, reuseRequestIds } from './reuse.js';
import { type PayoutResultRow, sendPayouts } from './send.js';

export interface PayoutFlags {
  request?: string;
  file?: string;
  /** A workbook's sheet to read; default its first. */
  sheet?: string;
  resume?: boolean;
  force?: boolean;
  /** With resume: this run (from `payops runs resume ID`) rather than the newest unfinished one. */
  runId?: string;
  /** --file: amounts with a decimal comma; the file's encoding (bulk/read-as.ts). */
  decimalComma?: boolean;
  encoding?: string;
  /** A workbook's hidden rows and sheets: pay them too, or leave them out (bulk/report.ts hiddenLines). */
  includeHidden?: boolean;
  skipHidden?: boolean;
}

export const PAYOUT_OP = 'payout';

/** The last `result` record of each line that `keep` accepts, without its journal fields. */
export function resultsByLine(
  records: readonly PayoutRecord[],
  keep: (row: PayoutResultRow) => boolean = () => true,
): Map<number, PayoutResultRow> {
  const byLine = new Map<number, PayoutResultRow>();
  for (const r of records) {
    if (r.type !== 'result') continue;
    const { type: _t, at: _a, ...row } = r;
    if (keep(row)) byLine.set(row.line, row);
  }
  return byLine;
}

/**
 * Rows with a final result (completed or failed) in a run: they are not sent again on --resume.
 * Pending and unknown rows are not settled: --resume sends them again with their request_ids.
 */
export function settledFromRecords(records: readonly PayoutRecord[]): Map<number, PayoutResultRow> {
  return resultsByLine(records, (row) => row.outcome === 'completed' || row.outcome === 'failed');
}

/** 3 while any payout is pending or unknown (resume it), 1 when some failed, 0 when all completed. */
export function payoutExitCode(rows: readonly PayoutResultRow[]): number {
  if (rows.some((r) => r.outcome === 'unknown' || r.outcome === 'pending')) return ExitCode.gateway;
  if (rows.some((r) => r.outcome === 'failed')) return ExitCode.someFailed;
  return ExitCode.ok;
}

/** A payout CSV, read as the flags and profile say; how it was read is shown when not the default. */
async function loadCsv(ctx: Context, opts: PayoutFlags): Promise<PayoutPlan> {
  const { readAsFrom } = await import('../bulk/read-as.js');
  const config = await ctx.config();
  const plan = await loadPayoutCsv(opts.file!, ctx.io.cwd, readAsFrom(opts, config.decimalMark), opts.sheet);
  const r = plan.readAs;
  if (r && (r.mark === ',' || r.established || r.encoding !== 'utf-8')) {
    const mark = r.mark === ',' ? 'decimal comma (12,50)' : 'decimal point (12.50)';
    ctx.log.info(
      `amounts read with a ${mark}: ${r.why}${r.encoding === 'utf-8' ? '' : ` · encoding ${r.encoding}`}`,
    );
  }
  // The sheet read and the rows a person does not see, as for bulk files; a run refuses those
  // rows unless --include-hidden or --skip-hidden (a dry run lists them).
  const { hiddenLines, hiddenRefusal } = await import('../bulk/report.js');
  for (const line of hiddenLines(plan, 'payout')) ctx.log.info(line.trimStart());
  const refused = ctx.globals.dryRun ? undefined : hiddenRefusal(plan.displayFile, plan);
  if (refused) throw refused;
  return plan;
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
    opts.request !== undefined ? await loadPayoutRequest(opts.request, ctx.io.cwd) : await loadCsv(ctx, opts);

  await checkOutFile(
    ctx.io.cwd,
    ctx.globals.out,
    [
      { flag: '--file', path: opts.file },
      { flag: '--request', path: opts.request },
    ],
    ctx.io.env,
  );
  const config = await ctx.config();
  assertMayMoveMoney(config, 'payout');
  const state = stateDir(ctx.io.env);
  const identity = payoutGatewayIdentity(config);
  // As for bulk runs: one process at a time per input and gateway, from choosing the run to its end.
  if (identity && !ctx.globals.dryRun) {
    ctx.onClose(
      await lockInput(
        state,
        { key: plan.sha256, op: PAYOUT_OP, gatewayIdentity: identity },
        plan.displayFile,
      ),
    );
  }

  let resumedJournal: RunJournal<PayoutJournalRecord> | undefined;
  let settled = new Map<number, PayoutResultRow>();
  let prior: PriorPayout[] = [];
  let reusedFrom: { runId: string; createdAt: string } | undefined;

  // Payout runs at this gateway and account, newest first (the runs folder is read once); the
  // gateway compared by meaning (runs/identity.ts), so runs recorded under another spelling count.
  const here = identity
    ? (await listRuns(state)).filter(
        (r) => r.header.op === PAYOUT_OP && sameGateway(r.header.gatewayIdentity, identity),
      )
    : [];
  const sameInput = here.filter((r) => r.header.sha256 === plan.sha256);
  const decision = decidePayoutRun({
    sameInput,
    nearby: here.filter((r) => !sameInput.includes(r)),
    // The newest run of this file (same path, or same bytes elsewhere).
    latest:
      !opts.resume && !opts.force
        ? here.find((r) => r.header.file === plan.file || r.header.sha256 === plan.sha256)
        : undefined,
    resume: Boolean(opts.resume),
    force: Boolean(opts.force),
    runId: opts.runId,
    what: plan.displayFile,
  });
  if (decision.action === 'refuse') throw decision.error;
  if (decision.action === 'resume') {
    const run = decision.run;
    let records: PayoutRecord[];
    if (ctx.globals.dryRun) records = (await readRun(state, run.runId, parsePayoutRecord)).records;
    else {
      // The `resumed` record is written once the payouts are confirmed, with how many are left.
      const opened = await openRun<PayoutRecord, PayoutJournalRecord>(state, run.runId, parsePayoutRecord);
      resumedJournal = opened.journal;
      records = opened.records;
    }
    prior = priorPayouts(records);
    settled = settledFromRecords(records);
    reusedFrom = { runId: run.runId, createdAt: run.header.createdAt };
  } else if (decision.reuseFrom) {
    const last = decision.reuseFrom;
    prior = priorPayouts((await readRun(state, last.runId, parsePayoutRecord)).records);
    reusedFrom = { runId: last.runId, createdAt: last.header.createdAt };
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
      // --sandbox: the sandbox's demo credentials, not the profile's (issue 15).
      profile: config.sandbox ? '' : config.profile,
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
    // A money-moving run from here, new or resumed, whether or not a payout is sent again: its exit
    // code stands when stdout's reader goes away (src/cli.ts).
    ctx.noteMoneyMoving();
    let journal: RunJournal<PayoutJournalRecord>;
    if (resumedJournal) {
      journal = resumedJournal;
      await journal.append({ type: 'resumed', toSend: toSend.length });
    } else {
      journal = await beginRun<PayoutJournalRecord>(state, {
        op: PAYOUT_OP,
        file: plan.file,
        label: plan.displayFile,
        sha256: plan.sha256,
        profile: config.profile,
        baseUrl: client.baseUrl,
        merchantId: config.merchantId,
        accountId: config.accountId,
        ...(identity ? { gatewayIdentity: identity } : {}),
        rows: plan.items.length,
        inputKind: plan.kind,
        // How the CSV was read, so that `runs resume ID` reads it the same way.
        ...(plan.readAs ? { readAs: JSON.stringify(plan.readAs) } : {}),
      });
      // Every request_id is on disk before the first payout leaves: a re-run or --resume finds them.
      await journal.append({
        type: 'plan',
        items: plan.items.map((i) => ({
          line: i.line,
          request_id: String(i.request.request_id),
          from: i.requestIdFrom,
          ...(i.key === undefined ? {} : { key: i.key }),
        })),
      });
    }

    let sent: PayoutResultRow[] = [];
    let interrupted = false;
    const rows = () => [...settled.values(), ...sent].sort((a, b) => a.line - b.line);
    // Ctrl-C stays absorbed until the run is closed (its terminal record written). A journal that
    // could not hold the run's end is told after the results: the user sees both.
    const unjournaled = await whileInterruptible(ctx.log, 'payouts', async (signal, now, closing) => {
      // An error of sendPayouts (a refused credential, the journal failing) is thrown once the run
      // is closed, and outranks a failure of the terminal record.
      let failed: { error: unknown } | undefined;
      try {
        sent = await sendPayouts(
          {
            client,
            journal,
            concurrency: ctx.globals.concurrency ?? config.concurrency,
            shouldStop: () => signal.aborted,
            abandon: now,
          },
          toSend,
        );
      } catch (error) {
        failed = { error };
      }
      interrupted = signal.aborted;
      closing();
      const all = [...settled.values(), ...sent];
      const counts = {
        completed: all.filter((r) => r.outcome === 'completed').length,
        failed: all.filter((r) => r.outcome === 'failed').length,
        pending: all.filter((r) => r.outcome === 'pending').length,
        unknown: all.filter((r) => r.outcome === 'unknown').length,
        unsent: plan.items.length - all.length,
      };
      // Pending, unknown or unsent payouts keep the run open for --resume (same request_ids, so no
      // double pay): it asks the gateway again and reports the final status.
      const open = counts.pending + counts.unknown + counts.unsent;
      const ended = await endRun(journal, { type: open === 0 ? 'finished' : 'interrupted', counts }).then(
        () => undefined,
        (err: unknown) => err,
      );
      if (failed) throw failed.error;
      // The results too (an --out file is renamed into place) before a Ctrl-C may end the process.
      await writePayoutResults(ctx.io, rows(), {
        format,
        color: ctx.color,
        ...(ctx.globals.out ? { out: ctx.globals.out } : {}),
      });
      return ended;
    });
    const shown = rows();
    const unsent = plan.items.length - shown.length;
    writePayoutSummary(ctx.io, shown, { runId: journal.runId, plan, unsent });
    if (unjournaled !== undefined) throw unjournaled;
    return interrupted ? ExitCode.interrupted : payoutExitCode(shown);
  } catch (err) {
    await resumedJournal?.close().catch(() => {});
    throw err;
  }
}
