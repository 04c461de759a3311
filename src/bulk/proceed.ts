// After the decision (run.ts): show the plan and confirm, then open the run — a new one (its input
// copy, journal header and preflight record) or the one resumed (its journal reopened, the rows
// done meanwhile left out) — and execute it (execute.ts). The one path for both.
import type { Approval } from '../approval/gate.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { newRunId } from '../lifecycle/paths.js';
import { type RunInfo, readRun } from '../lifecycle/read.js';
import { checkedSnapshot, SNAPSHOT_FILE, snapshotIntact, stageInput } from '../lifecycle/snapshot.js';
import { beginRun, resumeRunJournal } from '../lifecycle/steps.js';
import { sha256File } from '../tabular/csv-reader.js';
import { readAsText } from '../tabular/read-as.js';
import { recheckUntouched } from './check/gateway-check.js';
import type { PartlyRefunded } from './check/preflight.js';
import { execute, type OpenedSink, openRunResultsSink } from './engine/execute.js';
import {
  type BulkRecord,
  type BulkRecordWritten,
  type PreflightRecord,
  parseBulkRecord,
} from './engine/records.js';
import { chunkAction, type FoldedRun, foldRecords } from './engine/run-state.js';
import type { ResendPolicy } from './flags.js';
import type { BulkPlan } from './plan/plan.js';
import type { RowCache } from './plan/row-cache.js';
import { confirmQuestion, type PlanView, planLines, typedConfirmation } from './report/report.js';
import { confirmRun, stderrWidth } from './report/ui.js';

export interface Proceed {
  op: BatchOperation;
  plan: BulkPlan;
  config: ResolvedConfig;
  state: string;
  cache: RowCache | undefined;
  dryRun: boolean;
  /** Continue this run… */
  resumeFrom?: RunInfo;
  /** …or start a new one at this gateway, with what the gateway showed before it. */
  start?: {
    identity: string;
    inline: boolean;
    preflight?: PreflightRecord;
    partly?: PartlyRefunded[];
    noCheck?: boolean;
  };
  /** --no-check given to a resume: no look-ups before sending (a run started so makes none anyway). */
  noCheck?: boolean;
  note?: string;
  policy: ResendPolicy;
  /** What approval/gate.ts let through: a new run's id and header field when it runs a plan. */
  approval?: Approval | undefined;
}

/** Show the plan, confirm, open the run (new or resumed), execute: the one path for both. */
export async function proceed(ctx: Context, p: Proceed): Promise<number> {
  const { op, plan, config, state } = p;
  let prior: FoldedRun | undefined;
  if (p.resumeFrom) prior = foldRecords((await readRun(state, p.resumeFrom.runId, parseBulkRecord)).records);
  const runId = p.resumeFrom?.runId ?? p.approval?.runId ?? newRunId();
  const view = planView(ctx, config, plan, runId, p.dryRun, prior, p.resumeFrom, p.note);
  view.policy = p.policy;
  if (!p.resumeFrom) view.runIdAfterConfirm = true;
  // A run started with --no-check is resumed without look-ups too: this machine may not make them.
  const noCheck = Boolean(p.start?.noCheck || p.noCheck || p.resumeFrom?.header.check === 'skipped');
  if (noCheck) view.noCheck = true;
  const checked = p.start?.preflight ?? prior?.preflight;
  if (checked) {
    // A real run with done rows it does not skip was forced (it is refused otherwise).
    view.preflight = {
      done: checked.done.length,
      possible: checked.possible?.length ?? 0,
      partly: (p.start?.partly ?? []).map((r) => [r.line, r.where]),
      skip: checked.skip,
      force: !p.dryRun && !checked.skip && checked.done.length > 0,
    };
  }
  for (const line of planLines(view)) ctx.log.info(line);
  if (p.dryRun) return ExitCode.ok;

  await confirmRun(
    ctx,
    confirmQuestion(view),
    typedConfirmation(view, config.confirmTypedAbove, view.resume?.movingLeft),
  );
  if (!p.resumeFrom) ctx.log.info(`  run id: ${runId}`);
  const client = await ctx.client();
  if (p.resumeFrom) {
    // Pass 2 reads the run's own copy of the input: it must be the file that run planned. When the
    // user gave that very file (same SHA-256), a damaged copy is restored from it; a file of the
    // same rows in other bytes cannot restore it (checkedSnapshot refuses, exit 4).
    if (!(await snapshotIntact(p.resumeFrom, sha256File))) {
      if (plan.sha256 !== p.resumeFrom.header.sha256) await checkedSnapshot(p.resumeFrom, sha256File);
      const input = await stageInput(state, p.resumeFrom.runId, plan.source, plan.sha256, sha256File);
      await input.commit(p.resumeFrom.dir);
      ctx.log.warn(
        `payops: the input copy of run ${p.resumeFrom.runId} was damaged; restored from ${plan.source.label} (same SHA-256)`,
      );
    }
    const opened = await resumeRunJournal<BulkRecord, BulkRecordWritten>(
      state,
      p.resumeFrom.runId,
      parseBulkRecord,
      { pid: process.pid },
    );
    let resumed = foldRecords(opened.records);
    let sink: OpenedSink;
    try {
      const skipped = noCheck ? [] : await recheckUntouched(ctx, plan, resumed, p.cache, client, config);
      if (skipped.length > 0) {
        await opened.journal.append({ type: 'skipped', done: skipped });
        resumed = { ...resumed, skipped: [...resumed.skipped, ...skipped] };
      }
      // The run's own results file is written again, whole, unless another --out is given: left
      // as it was, it said `not_sent` for rows the resume did (issue 24, item 4).
      const own = p.resumeFrom.header.out;
      if (ctx.globals.out === undefined && own !== undefined) {
        ctx.globals.out = own;
        ctx.log.info(`payops: the results go to ${own}, as the run's first process wrote them`);
      }
      // Opened once the gateway has been asked: a resume that stops there leaves the results of
      // the earlier process in --out as they were.
      sink = await openRunResultsSink(ctx, op, plan.columns, plan.sheet?.looks.formats, plan.header?.matches);
    } catch (err) {
      await opened.journal.close();
      throw err;
    }
    return execute(ctx, {
      op,
      plan,
      journal: opened.journal,
      client,
      config,
      prior: resumed,
      preflight: resumed.preflight,
      cache: p.cache,
      sink,
      policy: p.policy,
    });
  }
  const start = p.start!;
  // Opened before the run exists: an --out that cannot be written leaves no half-started run.
  const sink = await openRunResultsSink(
    ctx,
    op,
    plan.columns,
    plan.sheet?.looks.formats,
    plan.header?.matches,
  );
  // The copy is made and checked before the run exists, so a file edited since pass 1 leaves no run.
  const input = await stageInput(state, runId, plan.source, plan.sha256, sha256File);
  const journal = await beginRun<BulkRecordWritten>(
    state,
    {
      op: plan.op,
      file: start.inline ? undefined : plan.source.path,
      label: plan.source.label,
      ...(plan.source.sheet === undefined ? {} : { sheet: plan.source.sheet }),
      inline: start.inline,
      sha256: plan.sha256,
      content: plan.content,
      profile: config.profile,
      baseUrl: client.baseUrl,
      merchantId: config.merchantId,
      accountId: config.accountId,
      gatewayIdentity: start.identity,
      sandbox: config.sandbox,
      rows: plan.rows,
      chunkSize: plan.chunkSize,
      requests: plan.requests,
      columns: plan.columns,
      snapshot: SNAPSHOT_FILE,
      ...(plan.readAs ? { readAs: readAsText(plan.readAs) } : {}),
      ...(sink.sink.file ? { out: sink.sink.file } : {}),
      ...(start.noCheck ? { check: 'skipped' } : {}),
      ...p.approval?.header,
    },
    { runId, input },
  );
  ctx.log.verbose(`journal: ${journal.path}`);
  // The plan's registry entry says its run began (approval/registry.ts) before anything is sent.
  await p.approval?.begun?.();
  // What the gateway had before the run is durable before any intent: reconciliation needs it.
  if (start.preflight) await journal.append(start.preflight);
  return execute(ctx, {
    op,
    plan,
    journal,
    client,
    config,
    prior: undefined,
    preflight: start.preflight,
    cache: p.cache,
    sink,
    policy: p.policy,
  });
}

function planView(
  ctx: Context,
  config: ResolvedConfig,
  plan: BulkPlan,
  runId: string,
  dryRun: boolean,
  prior: FoldedRun | undefined,
  resumeFrom: RunInfo | undefined,
  note: string | undefined,
): PlanView {
  const view: PlanView = {
    plan,
    runId,
    // A profile none of whose settings were used (all from flags or the environment) is not named.
    profile: Object.values(config.sources).includes('profile')
      ? config.profile
      : 'none (settings from the environment and flags)',
    baseUrl: config.baseUrl,
    merchantId: config.merchantId,
    accountId: config.accountId,
    sandbox: config.sandbox,
    concurrency: ctx.globals.concurrency ?? config.concurrency,
    dryRun,
    ...stderrWidth(ctx),
  };
  if (note) view.note = note;
  if (resumeFrom && prior) {
    let settled = 0;
    let pending = 0;
    for (const s of prior.chunks.values()) {
      if (chunkAction(s) === 'done') settled += s.rows!.length;
      else pending++;
    }
    view.resume = { settledRows: settled, pendingChunks: pending, createdAt: resumeFrom.header.createdAt };
    if (plan.chunkMoving) view.resume.movingLeft = movingLeft(plan.chunkMoving, prior);
  }
  return view;
}

/** What the chunks a resumed run has not settled move, per currency (in the file's order). */
function movingLeft(chunks: NonNullable<BulkPlan['chunkMoving']>, prior: FoldedRun): Map<string, bigint> {
  const left = new Map<string, bigint>();
  chunks.forEach((pairs, index) => {
    if (chunkAction(prior.chunks.get(index)) === 'done') return;
    for (const [currency, minor] of pairs) left.set(currency, (left.get(currency) ?? 0n) + minor);
  });
  return left;
}
