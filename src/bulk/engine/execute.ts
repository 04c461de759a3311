// Pass 2 of a bulk run, for a new run and a resumed one alike: the engine over the run's input
// snapshot, one result per row to the results sink, the terminal record, the summary.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { formatDuration } from '../../config/keys.js';
import type { ResolvedConfig } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import { ExitCode, exitCodeForSignal } from '../../errors.js';
import type { GatewayClient } from '../../gateway/client.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { whileInterruptible } from '../../lifecycle/interrupt.js';
import type { RunJournal } from '../../lifecycle/journal.js';
import type { RunHeader } from '../../lifecycle/records.js';
import { SNAPSHOT_FILE } from '../../lifecycle/snapshot.js';
import { endRun } from '../../lifecycle/steps.js';
import type { ResendPolicy } from '../flags.js';
import { type InputSource, inputRows } from '../input.js';
import { OPERATIONS } from '../operations.js';
import type { BulkPlan } from '../plan/plan.js';
import type { RowCache } from '../plan/row-cache.js';
import { shellQuote, summaryLines } from '../report/report.js';
import {
  addToRunTotals,
  exitCodeForTotals,
  newTotals,
  resultCells,
  resultLayout,
  skippedHidden,
  totalsDecimal,
  totalsJson,
} from '../report/results.js';
import { openResultSink, startProgress, stderrWidth } from '../report/ui.js';
import { chunkRows } from './chunk.js';
import { runEngine } from './engine.js';
import { keepOldGenerationSmall } from './heap.js';
import type { BulkRecordWritten, PreflightRecord } from './records.js';
import { type ResultsPump, startPump } from './results-pump.js';
import { type FoldedRun, skippedRows } from './run-state.js';

export interface OpenedSink {
  layout: ReturnType<typeof resultLayout>;
  sink: Awaited<ReturnType<typeof openResultSink>>;
}

/** The results sink for a run's rows; opened before the run exists, so a bad --out leaves no run. */
export async function openRunResultsSink(
  ctx: Context,
  op: BatchOperation,
  columns: string[],
  /** A workbook's columns' own number formats (SheetLooks.formats), kept in --out results.xlsx. */
  formats?: Parameters<typeof openResultSink>[4],
  matches?: Parameters<typeof resultLayout>[2],
): Promise<OpenedSink> {
  const layout = resultLayout(op, columns, matches);
  return {
    layout,
    sink: await openResultSink(
      ctx,
      layout.columns,
      layout.tableColumns,
      layout.outcomeColumn,
      formats,
      // The gateway's reference goes before one line per row does (it is in CSV and JSON).
      { note: layout.detailColumn, drop: layout.gatewayColumns.map(([, c]) => c) },
    ),
  };
}

/**
 * The rows --skip-hidden left out (pass 1 never handed them on): each a `skipped` result naming its
 * cell, before the rows sent. Counted without money: they were not checked as orders.
 */
function writeSkippedHidden(
  plan: BulkPlan,
  layout: OpenedSink['layout'],
  pump: ResultsPump,
  totals: ReturnType<typeof newTotals>,
): void {
  if (plan.hidden?.mode !== 'skip') return;
  for (const h of plan.hidden.rows) {
    totals.counts.skipped++;
    pump.push(resultCells(layout, h.cells ?? [], skippedHidden(h.line, h.ref)));
  }
}

/** The command that takes this run up again, as the user would type it. */
/** `keepOut` false where --out named another file (`runs show --out fix.csv`): never suggest writing over it. */
export function resumeCommand(ctx: Context, header: RunHeader, keepOut = true): string {
  const profile = ctx.globals.profile ? ` --profile ${shellQuote(ctx.globals.profile)}` : '';
  // A pipe (`<(cat f.csv)`, a FIFO) was read once and is gone: only the run's own copy can go on.
  if (header.inline || !header.file || wasPipe(header.label ?? header.file))
    return `payops${profile} runs resume ${header.runId} --yes`;
  const out = keepOut && ctx.globals.out ? ` --out ${shellQuote(ctx.globals.out)}` : '';
  return `payops${profile} ${header.op} --file ${shellQuote(header.label ?? header.file)} --resume --yes${out}   (or: payops${profile} runs resume ${header.runId})`;
}

/** A path that names a pipe rather than a file one can read again (pipe-input.ts reads it once). */
function wasPipe(path: string): boolean {
  if (/^\/(dev\/fd|proc\/(self|\d+)\/fd)\//.test(path) || path === '/dev/stdin') return true;
  try {
    return statSync(path).isFIFO();
  } catch {
    return false;
  }
}

export interface ExecuteArgs {
  op: BatchOperation;
  plan: BulkPlan;
  journal: RunJournal<BulkRecordWritten>;
  client: GatewayClient;
  config: ResolvedConfig;
  /** What earlier processes of this run recorded (a resumed run). */
  prior: FoldedRun | undefined;
  /** What the gateway showed before the run (absent in runs made before payops asked). */
  preflight?: PreflightRecord | undefined;
  /** Pass 1's rows, when they all fit: pass 2 then reads nothing. */
  cache?: RowCache | undefined;
  sink: OpenedSink;
  /** --settle-time and --max-attempts (a resumed run by id takes the profile's and the defaults). */
  policy: ResendPolicy;
}

export async function execute(ctx: Context, a: ExecuteArgs): Promise<number> {
  // A money-moving run from its start, new or resumed, whether or not this process sends (a resume
  // may only reconcile): its exit code stands when stdout's reader goes away (src/cli.ts).
  ctx.noteMoneyMoving();
  keepOldGenerationSmall();
  const { op, plan, journal } = a;
  const { layout, sink } = a.sink;
  const totals = newTotals();
  // --output json: the run's document names it from here on (its rows follow).
  const doc = ctx.runDocument;
  if (doc) doc.runId = journal.runId;
  const progress = await startProgress(ctx, plan.rows, op);
  const snapshot: InputSource = {
    path: join(journal.dir, journal.header.snapshot ?? SNAPSHOT_FILE),
    label: plan.source.label,
    ...(plan.source.readAs ? { readAs: plan.source.readAs } : {}),
  };
  // Rows reach the sink through the pump: after their outcomes are fsync'd in the journal, and
  // without ever holding up sending or journaling (results-pump.ts).
  const pump = startPump({
    sync: () => journal.sync(),
    write: (cells) => sink.writeCells(cells),
    dir: journal.dir,
  });
  let waitingBefore = false;
  // A second Ctrl-C abandoned the requests in flight (their rows are unknown until resumed).
  let abandoned = false;
  // The signal that stopped the run (SIGINT, SIGTERM, SIGHUP), for its exit code.
  let stoppedBy: unknown;
  const sendAll = (signal: AbortSignal, now: AbortSignal) =>
    runEngine({
      op,
      chunks: a.cache?.complete
        ? a.cache.chunks(plan.chunkSize)
        : chunkRows(inputRows(op, snapshot), plan.chunkSize),
      client: a.client,
      journal,
      ...(a.prior ? { prior: a.prior.chunks } : {}),
      preflight: {
        ...(a.preflight ? { before: a.preflight.before } : {}),
        skip: skippedRows(a.prior, a.preflight),
      },
      concurrency: ctx.globals.concurrency ?? a.config.concurrency,
      settleMs: a.policy.settleMs,
      maxAttempts: a.policy.maxAttempts,
      onWaiting: (rows, ms) => {
        const when = ms < 1000 ? 'under a second' : `${Math.ceil(ms / 1000)}s`;
        const text = `${rows} row${rows === 1 ? '' : 's'} with a lost answer: asking the gateway again in ${when} (--settle-time)`;
        // On a terminal, a short note beside the bar (an 80-column line holds it); in a log, one
        // line when waiting begins.
        if (progress.note)
          progress.note(rows > 0 ? `${rows} lost, asked again in ${Math.max(1, Math.ceil(ms / 1000))}s` : '');
        else if (rows > 0 && !waitingBefore)
          ctx.log.info(`payops: ${text}, then sending what it has not applied`);
        waitingBefore = rows > 0;
      },
      signal,
      abandon: now,
      emit: async (chunk, outcomes) => {
        // The bar counts rows the gateway settled: not_sent and unknown rows are not progress.
        let settled = 0;
        let ok = 0;
        let failed = 0;
        for (let i = 0; i < chunk.rows.length; i++) {
          const row = chunk.rows[i]!;
          const o = outcomes[i]!;
          addToRunTotals(totals, op, row, o.outcome);
          if (o.outcome !== 'not_sent' && o.outcome !== 'unknown') settled++;
          if (o.outcome === 'succeeded' || o.outcome === 'already_done') ok++;
          else if (o.outcome === 'failed') failed++;
          pump.push(resultCells(layout, row.cells, o));
        }
        progress.tick(settled, ok, failed);
      },
    });
  writeSkippedHidden(plan, layout, pump, totals);
  // Ctrl-C stays absorbed until the run is closed: results file renamed, terminal record written.
  const { result, unwritten, unjournaled, unshown } = await whileInterruptible(
    ctx.log,
    'requests',
    async (signal, now, closing) => {
      let result: Awaited<ReturnType<typeof runEngine>>;
      try {
        result = await sendAll(signal, now);
      } catch (err) {
        // Unexpected: keep what was journaled and the results written so far, release the run, let
        // main() report it.
        closing();
        if (doc)
          doc.outcome = { state: 'stopped', counts: { ...totals.counts }, totals: totalsDecimal(totals) };
        await pump
          .finish()
          .then(() => sink.close())
          .catch(() => {});
        // The error that stopped the run is the one to tell, even if the journal failed as well.
        await endRun(journal, {
          type: 'interrupted',
          reason: 'error',
          message: String((err as Error)?.message ?? err),
        }).catch(() => {});
        throw err;
      } finally {
        abandoned = now.aborted;
        progress.stop();
      }
      const late = closing();
      if (signal.aborted) stoppedBy = signal.reason;
      const settled = totals.counts.unknown === 0 && totals.counts.not_sent === 0;
      if (doc) {
        const state =
          result.stopped === 'interrupted' || (!result.stopped && !settled)
            ? 'interrupted'
            : result.stopped
              ? 'stopped'
              : 'finished';
        const why =
          result.stopped === 'interrupted'
            ? `stopped by ${typeof stoppedBy === 'string' ? stoppedBy : 'a signal'}`
            : result.stopped
              ? `stopped: ${result.error?.message ?? result.stopped}`
              : undefined;
        doc.outcome = {
          state,
          counts: { ...totals.counts },
          totals: totalsDecimal(totals),
          ...(why
            ? {
                error: {
                  code: result.stopped === 'interrupted' ? 'interrupted' : result.stopped!,
                  message: `${why}; resume with: ${resumeCommand(ctx, journal.header)}`,
                },
              }
            : {}),
        };
      }
      // The journal is closed first: its terminal record never waits on a stdout nobody reads.
      // A journal that could not hold the run's end is told after the summary: the user sees both.
      const unjournaled = await endRun(journal, {
        type: settled ? 'finished' : 'interrupted',
        ...(result.stopped ? { reason: result.stopped } : {}),
        ...totalsJson(totals),
      }).then(
        () => undefined,
        (err: unknown) => err,
      );
      // A results file that cannot be written does not keep the run from ending in its journal.
      // A signal while stdout's reader takes nothing stops the wait (the rows are journaled).
      let unshown = 0;
      const unwritten = await pump
        .finish(sink.file ? undefined : late)
        .then((left) => {
          unshown = left;
          return left > 0
            ? undefined
            : sink.close({ interrupted: result.stopped === 'interrupted', runId: journal.runId });
        })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      if (unshown > 0) {
        stoppedBy = late.reason;
        ctx.stdoutAbandoned = true;
      }
      return { result, unwritten, unjournaled, unshown };
    },
  );

  const summary = summaryLines({
    op,
    runId: journal.runId,
    totals,
    // --out as the user named it (sink.file is the resolved path).
    ...(sink.file && !unwritten ? { resultsFile: ctx.globals.out ?? sink.file } : {}),
    journalDir: journal.dir,
    ...(result.stopped ? { stopped: result.stopped } : {}),
    abandoned,
    resumeCommand: resumeCommand(ctx, journal.header),
    ...stderrWidth(ctx),
    resumable: !a.config.sandbox,
    sandbox: a.config.sandbox,
  });
  // A run on the built-in sandbox says so even under --quiet: its "succeeded" moved no real money.
  for (const [i, line] of summary.entries()) {
    if (i === 0 && a.config.sandbox) ctx.log.warn(line);
    else ctx.log.info(line);
  }
  if (a.config.sandbox) ctx.sandboxNoted = true;
  if (unshown > 0)
    ctx.log.warn(
      `payops: ${unshown} result${unshown === 1 ? ' was' : 's were'} not written to stdout (its reader took none); every row is in the journal: payops runs show ${journal.runId}`,
    );
  if (result.resent > 0 && OPERATIONS[op].verifiable) {
    // The one case no run can see for itself: a lost request applied later than the settle time.
    ctx.log.info(
      `  ${result.resent} row${result.resent === 1 ? ' was' : 's were'} sent again after the gateway showed no trace of ${result.resent === 1 ? 'its' : 'their'} first request ${formatDuration(a.policy.settleMs)} later; if your gateway can apply a request later than that, check with \`payops runs verify ${journal.runId}\` later`,
    );
  }
  // The journal failing is the machine's problem, not the gateway's: its own error, exit 4. Failing
  // mid-run (the run stopped sending) is told as such; failing at the end, as endRun tells it.
  if (result.stopped === 'journal' && result.error) throw result.error;
  if (unjournaled) throw unjournaled;
  if ((result.stopped === 'auth' || result.stopped === 'route') && result.error) throw result.error;
  if (unwritten) throw unwritten;
  if (result.stopped === 'interrupted' || unshown > 0) return exitCodeForSignal(stoppedBy);
  if (result.stopped) return ExitCode.gateway;
  return exitCodeForTotals(totals);
}
