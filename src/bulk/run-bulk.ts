// `payops capture|cancel|review|refund` and `payops runs resume ID` for those runs: plan (pass 1),
// decide which run this is (lifecycle/decide.ts), then proceed.ts: show the plan and confirm, start or
// reopen the run's journal, execute (pass 2, execute.ts). The check at the gateway is
// gateway-check.ts; what only makes a run faster sits behind one call each (rowCacheFor,
// lookAheadFor, keepIfNothingMoved; the heap bound in heap.ts). Loaded lazily by the commands.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { approvalGate } from '../approval/gate.js';
import { bulkRowsDigest } from '../approval/rows-digest.js';
import { stateDir } from '../config/paths.js';
import { assertMayMoveMoney, type ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { decideRun } from '../lifecycle/decide.js';
import { gatewayIdentity, sameGateway } from '../lifecycle/identity.js';
import { runDir } from '../lifecycle/paths.js';
import { findRunsAt, findRunsByInput, isSameInput } from '../lifecycle/read.js';
import type { RunHeader } from '../lifecycle/records.js';
import { SNAPSHOT_FILE } from '../lifecycle/snapshot.js';
import { lockInput, lockOperation } from '../lifecycle/steps.js';
import { openRunDocument } from '../output/run-document.js';
import { checkOutFile } from '../output/safe-file.js';
import { hiddenRefusal } from '../tabular/hidden.js';
import { readOncePath } from '../tabular/pipe-input.js';
import { assertNoCheckFits, checkAtGateway } from './check/gateway-check.js';
import { keepIfNothingMoved, lookAheadFor } from './check/look-ahead.js';
import { type BulkFlags, inlineOrder, resendPolicy } from './flags.js';
import { type InputSource, inlineSource, inputRows, runInput } from './input.js';
import { OPERATIONS } from './operations.js';
import { ownInput } from './own-input.js';
import { parseMaxAmount, planBulk } from './plan/plan.js';
import { rowCacheFor } from './plan/row-cache.js';
import { proceed } from './proceed.js';
import { readAsFrom, readAsOf } from './read-as.js';
import { OUTCOMES } from './report/results.js';
import { showBulkRun } from './report/show.js';
import { noteReadAsOfRun, runToResume } from './resume-read-as.js';

export type { BulkFlags };

export async function runBulk(ctx: Context, op: BatchOperation, flags: BulkFlags): Promise<number> {
  openRunDocument(ctx, op, OUTCOMES);
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

  const source = await inputSource(ctx, op, config, flags, inline);
  // Two things that only make it faster: pass 1 keeps the rows when they fit (row-cache.ts), and a
  // run that may start new asks the gateway while pass 1 still reads (look-ahead.ts).
  const cache = await rowCacheFor(source.path, dryRun, config.signKey !== undefined);
  const ahead = await lookAheadFor(ctx, op, cache, config, {
    fromFile: !inline,
    resume: Boolean(flags.resume),
    noCheck: Boolean(flags.noCheck),
    dryRun,
    maxOrders: flags.maxOrders,
  });
  const plan = await planBulk(
    op,
    source,
    { ...(flags.maxOrders !== undefined ? { maxOrders: flags.maxOrders } : {}), maxAmounts },
    cache,
    ahead,
  );

  // A workbook's rows nobody sees never move money unseen (tabular/hidden.ts hiddenRefusal); a dry run lists them.
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
  // means (lifecycle/read.ts isSameInput). A run folder without its input copy was cut off before
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
    planned: flags.plan !== undefined,
  });
  // Begun before the input lock and the decision: its answer stands only where nothing can have
  // been sent meanwhile (look-ahead.ts keepIfNothingMoved); otherwise the check is made again.
  await keepIfNothingMoved(ahead, decision.action === 'new', earlier, here);
  // Four-eyes approval (approval/gate.ts): the one call; it refuses before anything is sent.
  const approval =
    decision.action === 'new' || decision.action === 'resume'
      ? await approvalGate(ctx, config, {
          op,
          identity,
          content: plan.content,
          rowsDigest: () => bulkRowsDigest(inputRows(op, plan.source)),
          rows: plan.rows,
          totals: plan.moving,
          label: inline ? undefined : plan.source.label,
          planPath: flags.plan,
          dryRun,
          resuming: decision.action === 'resume' ? decision.run.header : undefined,
          skipDone: Boolean(flags.skipDone),
          beyond: flags.force ? ['--force'] : [],
        })
      : undefined;
  switch (decision.action) {
    case 'refuse':
      throw decision.error;
    case 'show':
      ctx.log.info(decision.note);
      if (ctx.runDocument) {
        ctx.runDocument.runId = decision.run.runId;
        ctx.runDocument.outcome = { state: 'finished' };
      }
      return showBulkRun(ctx, decision.run.runId);
    case 'resume': {
      const own = await ownInput(ctx, state, decision.run, plan, cache, dryRun);
      return proceed(ctx, {
        op,
        config,
        state,
        dryRun,
        resumeFrom: decision.run,
        approval,
        ...own,
        policy: resendPolicy(flags, config.settleMs),
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
        approval,
        start: {
          identity,
          inline: Boolean(inline),
          ...(checked ? { preflight: checked.record, partly: checked.partly } : {}),
          ...(flags.noCheck ? { noCheck: true } : {}),
        },
        policy: resendPolicy(flags, config.settleMs),
        ...(decision.note ? { note: decision.note } : {}),
      });
    }
  }
}

/** What the run reads: one order given by flags (as a one-row file), or --file (a pipe read once); `payops plan` reads a file the same way. */
export async function inputSource(
  ctx: Context,
  op: BatchOperation,
  config: ResolvedConfig,
  flags: BulkFlags,
  inline: ReturnType<typeof inlineOrder>,
): Promise<InputSource> {
  if (inline) {
    const made = await inlineSource(inline);
    ctx.onClose(made.cleanup);
    return { ...made.source, readAs: readAsFrom({ decimalComma: flags.decimalComma }, config.decimalMark) };
  }
  // A pipe (a FIFO, `<(cat f.csv)`) is read once, into a copy (pipe-input.ts).
  const path = await readOncePath(ctx, resolve(ctx.io.cwd, flags.file!), flags.file!);
  const { required, optional } = OPERATIONS[op].columns;
  const profileColumns = config.columns?.[op];
  const given = readAsFrom(flags, config.decimalMark, {
    known: [...required, ...optional],
    ...(profileColumns === undefined ? {} : { profile: { key: `columns.${op}`, text: profileColumns } }),
  });
  // --resume reads the file as its run did, whatever is given now: the printed resume command
  // carries no --encoding, --sheet or --refund-reason, and must work as printed (issue 24).
  const run = flags.resume ? await runToResume(ctx, op, config, path, flags) : undefined;
  const readAs = run ? readAsOf(run.header.readAs) : given;
  const sheet = run ? run.header.sheet : flags.sheet;
  if (run) noteReadAsOfRun(ctx, run, given, flags.sheet);
  return { path, label: flags.file!, ...(sheet === undefined ? {} : { sheet }), readAs };
}

/** `payops runs resume ID` for a bulk run: continue it against the same gateway, from its own input snapshot. */
export async function resumeBulkRun(ctx: Context, header: RunHeader): Promise<number> {
  const { runId } = header;
  const op = header.op as BatchOperation;
  openRunDocument(ctx, op, OUTCOMES);
  const config = await ctx.config();
  assertMayMoveMoney(config, `payops runs resume (${op})`);
  if (header.sandbox) {
    throw new UsageError(
      `run ${runId} was made against an in-process sandbox, which is gone: it cannot be resumed`,
    );
  }
  const identity = gatewayIdentity(config);
  // By meaning (lifecycle/identity.ts): a header written with another spelling of this URL still matches.
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
    if (ctx.runDocument) {
      ctx.runDocument.runId = runId;
      ctx.runDocument.outcome = { state: 'finished' };
    }
    return showBulkRun(ctx, runId);
  }
  const snapshot = await runInput(state, header);
  const cache = await rowCacheFor(snapshot.path, dryRun, false);
  const plan = await planBulk(op, snapshot, {}, cache);
  // It keeps the plan it began with (approval/gate.ts).
  const approval = await approvalGate(ctx, config, {
    op,
    identity,
    content: plan.content,
    rows: plan.rows,
    totals: plan.moving,
    label: header.label ?? runId,
    dryRun,
    resuming: header,
  });
  const resumeFrom = info ?? { runId, dir: runDir(state, runId), header, state: 'interrupted' };
  return proceed(ctx, {
    op,
    plan,
    config,
    state,
    cache,
    dryRun,
    resumeFrom,
    approval,
    policy: resendPolicy({}, config.settleMs),
  });
}
