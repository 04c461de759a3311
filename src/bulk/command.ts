// `payops capture|cancel|review|refund` and `payops runs resume|show`: plan (pass 1), refuse what
// must be refused, show the plan and confirm, snapshot the input into the run's folder, execute
// (pass 2) through the engine, write one result per row, summarise. Loaded lazily by the commands.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { stateDir } from '../config/paths.js';
import { assertMayMoveMoney, type ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ExitCode, InputError, UsageError } from '../errors.js';
import type { GatewayClient } from '../gateway/client.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { chunkRows } from './chunk.js';
import { sha256File } from './csv-reader.js';
import { runEngine } from './engine.js';
import { type InlineOrder, type InputSource, inlineSource, inputRows } from './input.js';
import {
  acquireLock,
  createRun,
  findRunsByInput,
  newRunId,
  openRun,
  type RunHeader,
  type RunInfo,
  type RunJournal,
  readRun,
  runDir,
  runsDir,
} from './journal.js';
import { type BulkPlan, parseMaxAmount, planBulk } from './plan.js';
import { confirmQuestion, type PlanView, planLines, shellQuote, summaryLines } from './report.js';
import { addToRunTotals, exitCodeFor, newTotals, resultCells, resultLayout, totalsJson } from './results.js';
import { RowCache } from './row-cache.js';
import { chunkAction, type FoldedRun, foldRecords } from './run-state.js';
import type { RunTotals } from './types.js';
import { confirmRun, openResultSink, startProgress } from './ui.js';

export interface BulkFlags {
  file?: string;
  transactionId?: string;
  orderNo?: string;
  currency?: string;
  amount?: string;
  refundAmount?: string;
  refundReason?: string;
  reviewFlag?: string;
  resume?: boolean;
  force?: boolean;
  maxOrders?: number;
  maxAmount?: string[];
}

/** The input's copy inside the run folder: pass 2, resumes and `runs show` read it. */
export const SNAPSHOT_FILE = 'input.csv';

/** Who the money moves at. An in-process sandbox is a new gateway every process. */
export function gatewayIdentity(config: ResolvedConfig): string {
  const base = `${config.baseUrl.replace(/\/+$/, '')}|${config.merchantId}|${config.accountId}`;
  return config.sandbox
    ? `${base}|in-process-sandbox:${process.pid}-${randomBytes(4).toString('hex')}`
    : base;
}

const ORDER_FLAGS: Record<BatchOperation, Array<[string, keyof BulkFlags]>> = {
  capture: [
    ['transaction_id', 'transactionId'],
    ['order_no', 'orderNo'],
    ['currency', 'currency'],
    ['amount', 'amount'],
  ],
  cancel: [
    ['transaction_id', 'transactionId'],
    ['order_no', 'orderNo'],
    ['currency', 'currency'],
    ['amount', 'amount'],
  ],
  review: [
    ['transaction_id', 'transactionId'],
    ['order_no', 'orderNo'],
    ['currency', 'currency'],
    ['amount', 'amount'],
    ['review_flag', 'reviewFlag'],
  ],
  refund: [
    ['transaction_id', 'transactionId'],
    ['order_no', 'orderNo'],
    ['currency', 'currency'],
    ['amount', 'amount'],
    ['refund_amount', 'refundAmount'],
    ['refund_reason', 'refundReason'],
  ],
};

const ALL_ORDER_FLAGS: Array<keyof BulkFlags> = [
  'transactionId',
  'orderNo',
  'currency',
  'amount',
  'refundAmount',
  'refundReason',
  'reviewFlag',
];

function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** One order given by flags, or undefined for --file; refuses both, neither, and foreign flags. */
export function inlineOrder(op: BatchOperation, flags: BulkFlags): InlineOrder | undefined {
  const given = ALL_ORDER_FLAGS.filter((k) => flags[k] !== undefined);
  if (flags.file !== undefined) {
    if (given.length > 0) {
      throw new UsageError(
        `give either --file or the order flags, not both (${given.map(flagName).join(', ')})`,
      );
    }
    return undefined;
  }
  if (given.length === 0) {
    throw new UsageError(
      `give --file FILE.csv, or one order with ${ORDER_FLAGS[op].map(([, k]) => flagName(k)).join(' ')}`,
    );
  }
  const allowed = new Set(ORDER_FLAGS[op].map(([, k]) => k));
  const foreign = given.filter((k) => !allowed.has(k));
  if (foreign.length > 0) {
    throw new UsageError(
      `${foreign.map(flagName).join(', ')} ${foreign.length > 1 ? 'do' : 'does'} not apply to ${op}`,
    );
  }
  // Missing values become empty cells, so validation names each missing flag.
  return ORDER_FLAGS[op].map(([field, key]) => [field, String(flags[key] ?? '')]);
}

/** Held from the duplicate check to the end of the run: one process per input, operation and gateway. */
async function lockInput(
  state: string,
  sha256: string,
  op: BatchOperation,
  identity: string,
  label: string,
): Promise<() => Promise<void>> {
  await mkdir(runsDir(state), { recursive: true, mode: 0o700 });
  const key = createHash('sha256').update(`${sha256}|${op}|${identity}`).digest('hex').slice(0, 24);
  return acquireLock(join(runsDir(state), `.input-${key}.lock`), `${label} (${op})`);
}

function describeRun(r: RunInfo): string {
  return `run ${r.runId} of ${r.header.createdAt.slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * Sending allocates about 10 KB per order (request and answer text, parsed bodies), nearly all
 * short-lived; some survives into the old generation. V8 lets that generation grow up to 4x its live
 * size before collecting it, and on a busy machine, where its concurrent marking falls behind, a
 * 100,000-refund run peaked at 143 MB RSS instead of 119. Growing it by at most 1.5x keeps the peak
 * at ~120 MB, busy or not, for a few more (cheap) major collections. Read by V8 at each collection,
 * so setting it now takes effect.
 */
function keepOldGenerationSmall(): void {
  setFlagsFromString('--heap-growing-percent=50');
}

export async function runBulk(ctx: Context, op: BatchOperation, flags: BulkFlags): Promise<number> {
  const inline = inlineOrder(op, flags);
  if (flags.resume && flags.force) {
    throw new UsageError('--resume continues the earlier run and --force starts a new one: give one of them');
  }
  const maxAmounts = (flags.maxAmount ?? []).map(parseMaxAmount);
  const config = await ctx.config();
  const dryRun = Boolean(ctx.globals.dryRun);
  if (!dryRun) assertMayMoveMoney(config, `payops ${op}`);

  let source: InputSource;
  if (inline) {
    const made = await inlineSource(inline);
    ctx.onClose(made.cleanup);
    source = made.source;
  } else {
    source = { path: resolve(ctx.io.cwd, flags.file!), label: flags.file! };
  }
  const cache = dryRun ? undefined : new RowCache();
  const plan = await planBulk(
    op,
    source,
    { ...(flags.maxOrders !== undefined ? { maxOrders: flags.maxOrders } : {}), maxAmounts },
    cache,
  );

  const state = stateDir(ctx.io.env);
  const identity = gatewayIdentity(config);
  const what = inline ? 'this order' : plan.source.label;
  // Two payops started on the same file at once must not both find "no earlier run" and both send.
  if (!dryRun) ctx.onClose(await lockInput(state, plan.sha256, op, identity, what));
  // A run folder without its input copy was cut off before anything could be sent: not a run.
  const earlier = (await findRunsByInput(state, plan.sha256, op, identity)).filter((r) =>
    existsSync(join(r.dir, String(r.header.snapshot ?? SNAPSHOT_FILE))),
  );
  const unfinished = earlier.find((r) => r.state !== 'finished');
  const finished = earlier.find((r) => r.state === 'finished');
  let resumeFrom: RunInfo | undefined;
  let note: string | undefined;

  if (flags.resume) {
    if (unfinished) resumeFrom = unfinished;
    else if (finished) {
      ctx.log.info(
        `${what} was already processed to the end by ${describeRun(finished)}: its results follow.`,
      );
      return showRun(ctx, finished.runId);
    } else note = `no earlier run of ${what} to resume: starting a new run`;
  } else if (!flags.force) {
    if (finished && !dryRun) {
      throw new UsageError(`${what} was already processed by ${describeRun(finished)}; nothing was sent`, {
        hint: `see its results with \`payops runs show ${finished.runId}\`; to send everything again on purpose, add --force`,
      });
    }
    if (unfinished && !dryRun) {
      throw new UsageError(`${what} has an unfinished ${describeRun(unfinished)}; nothing was sent`, {
        hint: 'add --resume to continue it (nothing is sent twice), or --force to start a new run anyway',
      });
    }
    if (finished) note = `already processed by ${describeRun(finished)}`;
    else if (unfinished) note = `an unfinished ${describeRun(unfinished)} exists (--resume continues it)`;
  } else if (earlier.length > 0) {
    note = `--force: earlier runs of ${what} are ignored (latest: ${describeRun(earlier[0]!)})`;
  }

  let prior: FoldedRun | undefined;
  if (resumeFrom) prior = foldRecords((await readRun(state, resumeFrom.runId)).records);
  const runId = resumeFrom?.runId ?? newRunId();
  const view = planView(ctx, config, plan, runId, dryRun, prior, resumeFrom, note);
  for (const line of planLines(view)) ctx.log.info(line);
  if (dryRun) return ExitCode.ok;

  await confirmRun(ctx, confirmQuestion(view));
  const client = await ctx.client();
  // Opened before the run exists: an --out that cannot be written leaves no half-started run.
  const sink = await openSink(ctx, op, plan);

  let journal: RunJournal;
  if (resumeFrom) {
    const opened = await openRun(state, resumeFrom.runId);
    journal = opened.journal;
    prior = foldRecords(opened.records);
    await journal.append({ type: 'resumed', pid: process.pid });
  } else {
    journal = await startRun(ctx, state, plan, runId, config, identity, client, Boolean(inline));
  }
  return execute(ctx, { op, plan, journal, client, config, prior, cache, sink });
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
    profile: config.profile,
    baseUrl: config.baseUrl,
    merchantId: config.merchantId,
    accountId: config.accountId,
    sandbox: config.sandbox,
    concurrency: ctx.globals.concurrency ?? config.concurrency,
    dryRun,
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
  }
  return view;
}

/** Copy the input into a fresh run folder (verified against the plan's SHA-256), then create its journal. */
async function startRun(
  ctx: Context,
  state: string,
  plan: BulkPlan,
  runId: string,
  config: ResolvedConfig,
  identity: string,
  client: GatewayClient,
  inline: boolean,
): Promise<RunJournal> {
  // The copy is made and checked before the run exists, so a file edited since pass 1 leaves no run.
  await mkdir(runsDir(state), { recursive: true, mode: 0o700 });
  const staging = join(runsDir(state), `.input-${runId}-${process.pid}.csv`);
  try {
    await copyFile(plan.source.path, staging);
    if ((await sha256File(staging)) !== plan.sha256) {
      throw new InputError(
        `${plan.source.label} changed while payops was checking it; nothing was sent`,
        [],
        {
          hint: 'save and close the file (e.g. in Excel), then run again',
        },
      );
    }
    const header = {
      op: plan.op,
      file: inline ? undefined : plan.source.path,
      label: plan.source.label,
      inline,
      sha256: plan.sha256,
      profile: config.profile,
      baseUrl: client.baseUrl,
      merchantId: config.merchantId,
      accountId: config.accountId,
      gatewayIdentity: identity,
      sandbox: config.sandbox,
      rows: plan.rows,
      chunkSize: plan.chunkSize,
      requests: plan.requests,
      columns: plan.columns,
      snapshot: SNAPSHOT_FILE,
    };
    const journal = await createRun(state, header, { runId });
    await rename(staging, join(journal.dir, SNAPSHOT_FILE));
    ctx.log.verbose(`journal: ${journal.path}`);
    return journal;
  } finally {
    await rm(staging, { force: true });
  }
}

function resumeCommand(ctx: Context, header: RunHeader): string {
  const profile = ctx.globals.profile ? ` --profile ${shellQuote(ctx.globals.profile)}` : '';
  if (header.inline || !header.file) return `payops${profile} runs resume ${header.runId} --yes`;
  const out = ctx.globals.out ? ` --out ${shellQuote(ctx.globals.out)}` : '';
  return `payops${profile} ${header.op} --file ${shellQuote(String(header.label ?? header.file))} --resume --yes${out}   (or: payops${profile} runs resume ${header.runId})`;
}

interface ExecuteArgs {
  op: BatchOperation;
  plan: BulkPlan;
  journal: RunJournal;
  client: GatewayClient;
  config: ResolvedConfig;
  prior: FoldedRun | undefined;
  /** Pass 1's rows, when they all fit: pass 2 then reads nothing. */
  cache?: RowCache | undefined;
  sink: OpenedSink;
}

interface OpenedSink {
  layout: ReturnType<typeof resultLayout>;
  sink: Awaited<ReturnType<typeof openResultSink>>;
}

async function openSink(ctx: Context, op: BatchOperation, plan: BulkPlan): Promise<OpenedSink> {
  const layout = resultLayout(op, plan.columns);
  return {
    layout,
    sink: await openResultSink(ctx, layout.columns, layout.tableColumns, layout.outcomeColumn),
  };
}

async function execute(ctx: Context, a: ExecuteArgs): Promise<number> {
  keepOldGenerationSmall();
  const { op, plan, journal } = a;
  const { layout, sink } = a.sink;
  const totals = newTotals();
  const progress = await startProgress(ctx, plan.rows, op);
  let interrupted = false;
  const onSigint = () => {
    if (!interrupted)
      ctx.log.warn('\ninterrupted: finishing the requests in flight, then stopping (nothing is lost)…');
    interrupted = true;
  };
  process.on('SIGINT', onSigint);
  const snapshot: InputSource = { path: join(journal.dir, SNAPSHOT_FILE), label: plan.source.label };
  let result: Awaited<ReturnType<typeof runEngine>>;
  try {
    result = await runEngine({
      op,
      chunks: chunkRows(a.cache?.complete ? a.cache.rows() : inputRows(op, snapshot), plan.chunkSize),
      send: { client: a.client, journal },
      ...(a.prior ? { prior: a.prior.chunks } : {}),
      concurrency: ctx.globals.concurrency ?? a.config.concurrency,
      shouldStop: () => interrupted,
      emit: async (chunk, outcomes) => {
        for (let i = 0; i < chunk.rows.length; i++) {
          const row = chunk.rows[i]!;
          const o = outcomes[i]!;
          addToRunTotals(totals, op, row, o.outcome);
          const w = sink.writeCells(resultCells(layout, row.cells, o));
          if (w) await w;
        }
        progress.tick(chunk.rows.length);
      },
    });
  } catch (err) {
    // Unexpected: keep what was journaled, release the run, let main() report it.
    journal.appendLazy({
      type: 'interrupted',
      reason: 'error',
      message: String((err as Error)?.message ?? err),
    });
    await journal.close();
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
    progress.stop();
  }
  await sink.close();
  const settled = totals.counts.unknown === 0 && totals.counts.not_sent === 0;
  await journal
    .append({
      type: settled ? 'finished' : 'interrupted',
      ...(result.stopped ? { reason: result.stopped } : {}),
      ...totalsJson(totals),
    })
    .catch(() => {});
  await journal.close();

  for (const line of summaryLines({
    op,
    runId: journal.runId,
    totals,
    ...(sink.file ? { resultsFile: sink.file } : {}),
    journalDir: journal.dir,
    ...(result.stopped ? { stopped: result.stopped } : {}),
    resumeCommand: resumeCommand(ctx, journal.header),
    resumable: !a.config.sandbox,
  })) {
    ctx.log.info(line);
  }
  if (result.stopped === 'auth' && result.error) throw result.error;
  if (result.stopped === 'interrupted') return ExitCode.interrupted;
  if (result.stopped) return ExitCode.gateway;
  return exitCodeFor(totals);
}

// ---------------------------------------------------------------- runs show / resume

async function headerOf(ctx: Context, runId: string): Promise<{ state: string; header: RunHeader }> {
  const state = stateDir(ctx.io.env);
  const { header } = await readRun(state, runId);
  if (!['capture', 'cancel', 'review', 'refund', 'payout'].includes(header.op)) {
    throw new UsageError(`run ${runId} is a ${header.op} run, which payops runs cannot show or resume`);
  }
  return { state, header };
}

/** Results of a run regenerated from its journal and its input snapshot; sends nothing. */
export async function showRun(ctx: Context, runId: string): Promise<number> {
  const { state, header } = await headerOf(ctx, runId);
  if (header.op === 'payout') return (await import('../payout/runs.js')).showPayoutRun(ctx, runId);
  const op = header.op as BatchOperation;
  const { records } = await readRun(state, runId);
  const folded = foldRecords(records);
  const columns = Array.isArray(header.columns) ? (header.columns as string[]) : [];
  const layout = resultLayout(op, columns);
  const sink = await openResultSink(ctx, layout.columns, layout.tableColumns, layout.outcomeColumn);
  const totals: RunTotals = newTotals();
  const snapshot: InputSource = {
    path: join(runDir(state, runId), String(header.snapshot ?? SNAPSHOT_FILE)),
    label: String(header.label ?? header.file ?? runId),
  };
  await runEngine({
    op,
    chunks: chunkRows(inputRows(op, snapshot), Number(header.chunkSize) || 50),
    prior: folded.chunks,
    concurrency: 1,
    emit: async (chunk, outcomes) => {
      for (let i = 0; i < chunk.rows.length; i++) {
        const row = chunk.rows[i]!;
        addToRunTotals(totals, op, row, outcomes[i]!.outcome);
        const w = sink.writeCells(resultCells(layout, row.cells, outcomes[i]!));
        if (w) await w;
      }
    },
  });
  await sink.close();
  for (const line of summaryLines({
    op,
    runId,
    totals,
    ...(sink.file ? { resultsFile: sink.file } : {}),
    journalDir: runDir(state, runId),
    resumeCommand: resumeCommand(ctx, header),
    resumable: !header.sandbox,
  })) {
    ctx.log.info(line);
  }
  return exitCodeFor(totals);
}

/** `payops runs resume ID`: continue a run against the same gateway, from its own input snapshot. */
export async function resumeRun(ctx: Context, runId: string): Promise<number> {
  const { state, header } = await headerOf(ctx, runId);
  if (header.op === 'payout') return (await import('../payout/runs.js')).resumePayoutRun(ctx, runId);
  const op = header.op as BatchOperation;
  const config = await ctx.config();
  assertMayMoveMoney(config, `payops runs resume (${op})`);
  if (header.sandbox) {
    throw new UsageError(
      `run ${runId} was made against an in-process sandbox, which is gone: it cannot be resumed`,
    );
  }
  const identity = gatewayIdentity(config);
  if (identity !== header.gatewayIdentity) {
    throw new UsageError(
      `run ${runId} was made at ${header.baseUrl} (merchant ${header.merchantId}, account ${header.accountId}), not at the gateway configured now`,
      {
        hint: 'select the same profile or gateway settings as when the run started (--profile, PAYOPS_* variables)',
      },
    );
  }
  if (!ctx.globals.dryRun) {
    ctx.onClose(await lockInput(state, String(header.sha256), op, identity, String(header.label ?? runId)));
  }
  const info = (await findRunsByInput(state, String(header.sha256), op, identity)).find(
    (r) => r.runId === runId,
  );
  if (info?.state === 'finished') {
    ctx.log.info(`run ${runId} is already finished: its results follow.`);
    return showRun(ctx, runId);
  }
  const snapshot: InputSource = {
    path: join(runDir(state, runId), String(header.snapshot ?? SNAPSHOT_FILE)),
    label: String(header.label ?? header.file ?? runId),
  };
  const cache = ctx.globals.dryRun ? undefined : new RowCache();
  const plan = await planBulk(op, snapshot, {}, cache);
  const prior = foldRecords((await readRun(state, runId)).records);
  const view = planView(
    ctx,
    config,
    plan,
    runId,
    Boolean(ctx.globals.dryRun),
    prior,
    info ?? {
      runId,
      dir: runDir(state, runId),
      header,
      state: 'interrupted',
    },
    undefined,
  );
  for (const line of planLines(view)) ctx.log.info(line);
  if (ctx.globals.dryRun) return ExitCode.ok;
  await confirmRun(ctx, confirmQuestion(view));
  const client = await ctx.client();
  const sink = await openSink(ctx, op, plan);
  const opened = await openRun(state, runId);
  await opened.journal.append({ type: 'resumed', pid: process.pid });
  return execute(ctx, {
    op,
    plan,
    journal: opened.journal,
    client,
    config,
    prior: foldRecords(opened.records),
    cache,
    sink,
  });
}
