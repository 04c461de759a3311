// `payops capture|cancel|review|refund` and `payops runs resume ID` for those runs: plan (pass 1),
// decide which run this is (runs/decide.ts), show the plan and confirm, start or reopen the run's
// journal, then execute (pass 2, execute.ts). Loaded lazily by the commands.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stateDir } from '../config/paths.js';
import { assertMayMoveMoney, type ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import {
  AuthError,
  ConfigError,
  ExitCode,
  InputError,
  PayopsError,
  UsageError,
  withHint,
} from '../errors.js';
import type { GatewayClient } from '../gateway/client.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { checkOutFile } from '../output/safe-file.js';
import { decideRun } from '../runs/decide.js';
import { gatewayIdentity, sameGateway } from '../runs/identity.js';
import { beginRun, lockInput, lockOperation, resumeRunJournal } from '../runs/lifecycle.js';
import { newRunId, runDir } from '../runs/paths.js';
import { findRunsAt, findRunsByInput, isSameInput, type RunInfo, readRun } from '../runs/read.js';
import type { RunHeader } from '../runs/records.js';
import { checkedSnapshot, SNAPSHOT_FILE, snapshotIntact, stageInput } from '../runs/snapshot.js';
import { sha256File } from './csv-reader.js';
import { execute, keepOldGenerationSmall, type OpenedSink, openSink } from './execute.js';
import { type BulkFlags, inlineOrder, type RetryPolicy, retryPolicy } from './flags.js';
import { type InputSource, inlineSource, inputRows, runInput } from './input.js';
import { keepIfNothingMoved, type LookAhead, startLookAhead } from './look-ahead.js';
import { OPERATIONS } from './operations.js';
import { ownInput } from './own-input.js';
import { readOncePath } from './pipe-input.js';
import { type BulkPlan, parseMaxAmount, planBulk } from './plan.js';
import { type PartlyRefunded, preflight } from './preflight.js';
import { type ReadAs, readAsFrom, readAsOf, readAsText } from './read-as.js';
import { type BulkRecord, type BulkRecordWritten, type PreflightRecord, parseBulkRecord } from './records.js';
import { confirmQuestion, hiddenRefusal, type PlanView, planLines, typedConfirmation } from './report.js';
import { fitsRowCache, RowCache } from './row-cache.js';
import { chunkAction, type FoldedRun, foldRecords, sendsOf, skippedRows } from './run-state.js';
import { showRun } from './show.js';
import type { BulkRow } from './types.js';
import { confirmRun, showChecking, stderrWidth } from './ui.js';

export type { BulkFlags };

export async function runBulk(ctx: Context, op: BatchOperation, flags: BulkFlags): Promise<number> {
  const inline = inlineOrder(op, flags);
  if (flags.resume && flags.force) {
    throw new UsageError('--resume continues the earlier run and --force starts a new one: give one of them');
  }
  if (flags.skipDone && flags.force) {
    throw new UsageError(
      '--skip-done leaves out the rows the gateway already shows done and --force sends them: give one of them',
    );
  }
  if (flags.noCheck) assertNoCheckFits(op, flags);
  await checkOutFile(ctx.io.cwd, ctx.globals.out, [{ flag: '--file', path: flags.file }], ctx.io.env);
  const maxAmounts = (flags.maxAmount ?? []).map(parseMaxAmount);
  const config = await ctx.config();
  const dryRun = Boolean(ctx.globals.dryRun);
  if (!dryRun) assertMayMoveMoney(config, `payops ${op}`);

  let source: InputSource;
  if (inline) {
    const made = await inlineSource(inline);
    ctx.onClose(made.cleanup);
    source = { ...made.source, readAs: readAsFrom({ decimalComma: flags.decimalComma }, config.decimalMark) };
  } else {
    // A pipe (a FIFO, `<(cat f.csv)`) is read once, into a copy (pipe-input.ts).
    const path = await readOncePath(ctx, resolve(ctx.io.cwd, flags.file!), flags.file!);
    const given = readAsFrom(flags, config.decimalMark);
    // --resume reads the file as its run did, whatever is given now: the printed resume command
    // carries no --encoding, --sheet or --refund-reason, and must work as printed (issue 24).
    const run = flags.resume ? await runToResume(ctx, op, config, path, flags) : undefined;
    const readAs = run ? readAsOf(run.header.readAs) : given;
    const sheet = run ? run.header.sheet : flags.sheet;
    if (run) noteReadAsOfRun(ctx, run, given, flags.sheet);
    source = { path, label: flags.file!, ...(sheet === undefined ? {} : { sheet }), readAs };
  }
  // A dry run that will ask the gateway keeps the rows as a run does when they fit (row-cache.ts).
  const keep = !dryRun || (config.signKey !== undefined && (await fitsRowCache(source.path)));
  const cache = keep ? new RowCache() : undefined;
  // The gateway check of a run that starts new begins while the file is read (look-ahead.ts).
  const ahead =
    cache && !inline && !flags.resume && !flags.noCheck
      ? await startLookAhead(ctx, op, cache, config, flags.maxOrders)
      : undefined;
  // The look-ups allocate as sending does: the same bound on the old generation (execute.ts), from
  // the first of them (set only after pass 1, a 100,000-row run peaked at 141 MB instead of ~122).
  if (ahead && !dryRun) keepOldGenerationSmall();
  const plan = await planBulk(
    op,
    source,
    { ...(flags.maxOrders !== undefined ? { maxOrders: flags.maxOrders } : {}), maxAmounts },
    cache,
    ahead,
  );

  // A workbook's rows nobody sees never move money unseen (report.ts hiddenRefusal); a dry run lists them.
  const hiddenRefused = dryRun ? undefined : hiddenRefusal(plan.source.label, plan);
  if (hiddenRefused) throw hiddenRefused;

  const state = stateDir(ctx.io.env);
  const identity = gatewayIdentity(config);
  const what = inline ? 'this order' : plan.source.label;
  if (!dryRun) {
    ctx.onClose(await lockInput(state, { key: plan.content, op, gatewayIdentity: identity }, what));
    ctx.onClose(await lockOperation(state, op, identity));
  }
  // Earlier runs of this operation at this gateway, and among them those of this input by what it
  // means (runs/read.ts isSameInput). A run folder without its input copy was cut off before
  // anything could be sent: not a run.
  const here = (await findRunsAt(state, op, identity)).filter((r) =>
    existsSync(join(r.dir, r.header.snapshot ?? SNAPSHOT_FILE)),
  );
  const earlier = here.filter((r) => isSameInput(r.header, plan));
  const decision = decideRun({
    earlier,
    nearby: here.filter((r) => !earlier.includes(r)),
    op,
    resume: Boolean(flags.resume),
    force: Boolean(flags.force),
    skipDone: Boolean(flags.skipDone),
    dryRun,
    what,
  });
  // Begun before the input lock and the decision: its answer stands only where nothing can have
  // been sent meanwhile (look-ahead.ts keepIfNothingMoved); otherwise the check is made again.
  if (ahead) await keepIfNothingMoved(ahead, decision.action === 'new', earlier, here);
  switch (decision.action) {
    case 'refuse':
      throw decision.error;
    case 'show':
      ctx.log.info(decision.note);
      return showRun(ctx, decision.run.runId);
    case 'resume': {
      const own = await ownInput(ctx, state, decision.run, plan, cache, dryRun);
      return proceed(ctx, {
        op,
        config,
        state,
        dryRun,
        resumeFrom: decision.run,
        ...own,
        policy: retryPolicy(flags, config.settleMs),
        ...(flags.noCheck ? { noCheck: true } : {}),
      });
    }
    case 'new': {
      const checked = flags.noCheck
        ? undefined
        : await checkAtGateway(ctx, plan, cache, flags, dryRun, config, ahead);
      return proceed(ctx, {
        op,
        plan,
        config,
        state,
        cache,
        dryRun,
        start: {
          identity,
          inline: Boolean(inline),
          ...(checked ? { preflight: checked.record, partly: checked.partly } : {}),
          ...(flags.noCheck ? { noCheck: true } : {}),
        },
        policy: retryPolicy(flags, config.settleMs),
        ...(decision.note ? { note: decision.note } : {}),
      });
    }
  }
}

/**
 * The unfinished run `--resume` would continue for this file, to read the file as that run did: the
 * newest of this operation at this gateway made from the same bytes; else from the same path unless
 * the file changed since and flags now say how to read it (re-saved as UTF-8, say). Only how the
 * file is read is taken from it; which run is resumed is still decided by what the rows mean.
 */
async function runToResume(
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
    flags.sheet !== undefined;
  return given ? undefined : open.find((r) => r.header.file === path);
}

/** Flags that would read the file otherwise than its run did are overruled: say so, once. */
function noteReadAsOfRun(ctx: Context, run: RunInfo, given: ReadAs, sheet: string | undefined): void {
  const was = readAsOf(run.header.readAs);
  const differs: string[] = [];
  if (given.encoding !== 'utf-8' && given.encoding !== was.encoding) differs.push('--encoding');
  if (given.why === '--decimal-comma' && was.mark !== ',') differs.push('--decimal-comma');
  if (given.refundReason !== undefined && given.refundReason !== was.refundReason)
    differs.push('--refund-reason');
  if (given.hidden !== undefined && given.hidden !== was.hidden) differs.push(`--${given.hidden}-hidden`);
  if (sheet !== undefined && sheet !== run.header.sheet) differs.push('--sheet');
  if (differs.length === 0) return;
  ctx.log.warn(
    `payops: --resume reads the file as run ${run.runId} did (encoding ${was.encoding}${run.header.sheet ? `, sheet ${run.header.sheet}` : ''}); ${differs.join(', ')} given now ${differs.length === 1 ? 'is' : 'are'} not used`,
  );
}

/** `payops runs resume ID` for a bulk run: continue it against the same gateway, from its own input snapshot. */
export async function resumeBulkRun(ctx: Context, header: RunHeader): Promise<number> {
  const { runId } = header;
  const op = header.op as BatchOperation;
  const config = await ctx.config();
  assertMayMoveMoney(config, `payops runs resume (${op})`);
  if (header.sandbox) {
    throw new UsageError(
      `run ${runId} was made against an in-process sandbox, which is gone: it cannot be resumed`,
    );
  }
  const identity = gatewayIdentity(config);
  // By meaning (runs/identity.ts): a header written with another spelling of this URL still matches.
  if (!sameGateway(identity, header.gatewayIdentity)) {
    throw new UsageError(
      `run ${runId} was made at ${header.baseUrl} (merchant ${header.merchantId}, account ${header.accountId}), not at the gateway configured now`,
      {
        hint: 'select the same profile or gateway settings as when the run started (--profile, PAYOPS_* variables)',
      },
    );
  }
  const state = stateDir(ctx.io.env);
  const dryRun = Boolean(ctx.globals.dryRun);
  const sha256 = header.sha256 ?? '';
  if (!dryRun) {
    const key = header.content ?? sha256;
    ctx.onClose(await lockInput(state, { key, op, gatewayIdentity: identity }, header.label ?? runId));
    ctx.onClose(await lockOperation(state, op, identity));
  }
  const info = (await findRunsByInput(state, { content: header.content, sha256 }, op, identity)).find(
    (r) => r.runId === runId,
  );
  if (info?.state === 'finished') {
    ctx.log.info(`run ${runId} is already finished: its results follow.`);
    return showRun(ctx, runId);
  }
  const snapshot = await runInput(state, header);
  const cache = dryRun ? undefined : new RowCache();
  const plan = await planBulk(op, snapshot, {}, cache);
  const resumeFrom = info ?? { runId, dir: runDir(state, runId), header, state: 'interrupted' };
  return proceed(ctx, {
    op,
    plan,
    config,
    state,
    cache,
    dryRun,
    resumeFrom,
    policy: retryPolicy({}, config.settleMs),
  });
}

/**
 * Preflight (preflight.ts): which rows the gateway already shows done. A run refuses such rows
 * (exit 2, each listed with where it was found) unless --skip-done leaves them out or --force sends
 * them anyway; a dry run only reports them. A dry run without a sign key cannot ask: it says so.
 */
async function checkAtGateway(
  ctx: Context,
  plan: BulkPlan,
  cache: RowCache | undefined,
  flags: BulkFlags,
  dryRun: boolean,
  config: ResolvedConfig,
  ahead?: LookAhead,
): Promise<{ record: PreflightRecord; partly: PartlyRefunded[] } | undefined> {
  let client: GatewayClient;
  try {
    client = await ctx.client();
  } catch (err) {
    if (dryRun && err instanceof ConfigError) {
      ctx.log.info(`  not checked at the gateway: ${err.message}`);
      return undefined;
    }
    throw err;
  }
  // The row cache is read by position: the look-ups need only the ids of most rows (preflight.ts).
  const rows = cache?.complete ? cache : inputRows(plan.op, plan.source);
  // The look-ups allocate as sending does: the same bound on the old generation (execute.ts).
  if (!dryRun) keepOldGenerationSmall();
  let found: Awaited<ReturnType<typeof preflight>>;
  const clearChecking = showChecking(ctx, plan.rows);
  try {
    found =
      (await ahead?.finish()) ??
      (await preflight(plan.op, client, rows, ctx.globals.concurrency ?? config.concurrency));
  } catch (err) {
    clearChecking();
    // A dry run still checks the file when the gateway cannot be asked; a run never goes on blind.
    if (dryRun && err instanceof PayopsError) {
      ctx.log.info(`  not checked at the gateway: ${err.message}`);
      return undefined;
    }
    // A look-up's error (a timeout, say) knows nothing of the refunds not yet sent: said here.
    const refused = queryRefused(plan.op, err);
    if (refused) throw refused;
    if (err instanceof PayopsError && !/nothing was sent/.test(`${err.message} ${err.hint ?? ''}`)) {
      throw withHint(
        err,
        'nothing was sent: payops asks the gateway which rows are already done before it sends any',
      );
    }
    throw err;
  }
  clearChecking();
  const possible = found.done.filter((d) => d.possible).map((d) => d.line);
  const record: PreflightRecord = {
    type: 'preflight',
    before: found.before,
    done: found.done.map((d) => [d.line, d.where]),
    ...(possible.length > 0 ? { possible } : {}),
    skip: Boolean(flags.skipDone),
  };
  const spec = OPERATIONS[plan.op];
  const already = (d: { possible?: true }) => `${d.possible ? 'possibly ' : ''}already ${spec.words.done}`;
  if (dryRun && found.done.length > 0) {
    // The rows a run would refuse, as it would list them (the plan line below counts them).
    const shown = found.done.slice(0, 20);
    for (const d of shown) ctx.log.info(`  ${plan.source.label}:${d.line} ${already(d)}: ${d.where}`);
    if (found.done.length > shown.length) ctx.log.info(`  … and ${found.done.length - shown.length} more`);
  }
  if (found.done.length > 0 && !dryRun && !flags.skipDone && !flags.force) {
    const rows = `${found.done.length} of ${plan.rows} rows ${found.done.length === 1 ? 'is' : 'are'}`;
    throw new InputError(
      possible.length === 0
        ? `${plan.source.label}: ${rows} already ${spec.words.done} at the gateway; nothing was sent`
        : `${plan.source.label}: ${rows} already or possibly ${spec.words.done} at the gateway (${possible.length} by a refund of the same amount with another reason); nothing was sent`,
      found.done.map((d) => ({
        file: plan.source.label,
        line: d.line,
        message: `${already(d)}: ${d.where}`,
      })),
      {
        hint:
          possible.length === 0
            ? `--skip-done sends only the other rows (these are reported already_done); --force sends these too`
            : `a row possibly done has the amount of a refund made with another reason, perhaps the same refund typed another way: look at it at the gateway; --skip-done sends only the other rows (these are reported already_done); --force sends these too`,
      },
    );
  }
  return { record, partly: found.partly };
}

/**
 * --no-check is for the operations whose check is order query, which the gateway answers only from
 * registered IP addresses; an operation whose entry says the check is required (`checkRequired`:
 * a refund, whose check is answered from anywhere and which the gateway applies twice) keeps it.
 */
function assertNoCheckFits(op: BatchOperation, flags: BulkFlags): void {
  const required = OPERATIONS[op].checkRequired;
  if (required !== undefined) throw new UsageError(required, { hint: 'run it without --no-check' });
  if (flags.skipDone) {
    throw new UsageError(
      '--skip-done needs the gateway check that --no-check leaves out: give one of them; nothing was sent',
    );
  }
}

/**
 * The check of a capture, cancel or review is order query, which the gateway answers only from
 * registered IP addresses (E1003): say so, and what to do, rather than only that the IP was refused.
 */
function queryRefused(op: BatchOperation, err: unknown): AuthError | undefined {
  if (!(err instanceof AuthError) || err.code !== 'E1003' || OPERATIONS[op].reconcile.by !== 'query') return;
  return new AuthError(
    `payops checks at the gateway which orders are already ${OPERATIONS[op].words.done} before a ${op} run, with order query, which the gateway answers only from registered IP addresses — ${err.message}; nothing was sent`,
    err.code,
    {
      hint: `ask the gateway to register this machine's IP address for order query (\`payops status\` shows whether it may query), or add --no-check to ${op} without the check (the gateway still refuses to ${op} an order twice)`,
    },
  );
}

/** The rows not in `leave`; the transactions of those left out are added to `leftTx`. */
async function* unsettled<R extends BulkRow>(
  rows: AsyncIterable<R> | Iterable<R>,
  leave: ReadonlySet<number>,
  leftTx: Set<string>,
) {
  for await (const r of rows) {
    if (!leave.has(r.line)) yield r;
    else leftTx.add(r.transaction_id);
  }
}

/**
 * Before a resumed run sends rows no process of it has sent yet, it asks the gateway again: rows
 * done there since the run began — by another run of the same orders, another machine, the
 * merchant portal — are not sent, and are reported already_done. A refund the gateway had before
 * the run (its preflight record) does not count: those rows were sent on purpose (--force).
 */
async function recheckUntouched(
  ctx: Context,
  plan: BulkPlan,
  run: FoldedRun,
  cache: RowCache | undefined,
  client: GatewayClient,
  config: ResolvedConfig,
): Promise<Array<[number, string]>> {
  const leave = new Set<number>(skippedRows(run).keys());
  for (const s of run.chunks.values()) {
    if (s.open && !s.notSent) for (const line of s.intent?.lines ?? []) leave.add(line);
    // Rows a request of this run may have reached are the run's to settle (reconciled, where a
    // second refund shows as duplicated), not someone else's work.
    for (const o of s.rows ?? []) if (o.outcome !== 'not_sent' || sendsOf(s, o.line) > 0) leave.add(o.line);
  }
  const leftTx = new Set<string>();
  const rows = unsettled(cache?.complete ? cache.rows() : inputRows(plan.op, plan.source), leave, leftTx);
  let found: Awaited<ReturnType<typeof preflight>>;
  try {
    found = await preflight(plan.op, client, rows, ctx.globals.concurrency ?? config.concurrency);
  } catch (err) {
    throw queryRefused(plan.op, err) ?? err;
  }
  const before = new Set(Object.values(run.preflight?.before ?? {}).flat());
  const doneBefore = new Set((run.preflight?.done ?? []).map(([line]) => line));
  const fresh = found.done.filter(
    (d) =>
      (d.ref !== undefined ? !before.has(d.ref) : !doneBefore.has(d.line)) &&
      // A refund new since the run began, of an order this run sent other rows of, may be this
      // run's own (another row of the same amount and another reason): it proves nothing of this row.
      !(d.possible && leftTx.has(d.tx ?? '')),
  );
  if (fresh.length > 0) {
    ctx.log.warn(
      `payops: ${fresh.length} row${fresh.length === 1 ? ' was' : 's were'} done at the gateway since this run began (another run, machine or the portal): not sent, reported already_done`,
    );
  }
  return fresh.map((d) => [d.line, `done at the gateway since this run began: ${d.where}`]);
}

interface Proceed {
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
  policy: RetryPolicy;
}

/** Show the plan, confirm, open the run (new or resumed), execute: the one path for both. */
async function proceed(ctx: Context, p: Proceed): Promise<number> {
  const { op, plan, config, state } = p;
  let prior: FoldedRun | undefined;
  if (p.resumeFrom) prior = foldRecords((await readRun(state, p.resumeFrom.runId, parseBulkRecord)).records);
  const runId = p.resumeFrom?.runId ?? newRunId();
  const view = planView(ctx, config, plan, runId, p.dryRun, prior, p.resumeFrom, p.note);
  view.policy = p.policy;
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

  await confirmRun(ctx, confirmQuestion(view), typedConfirmation(view, config.confirmTypedAbove));
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
      sink = await openSink(ctx, op, plan.columns);
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
  const sink = await openSink(ctx, op, plan.columns);
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
    },
    { runId, input },
  );
  ctx.log.verbose(`journal: ${journal.path}`);
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
  }
  return view;
}
