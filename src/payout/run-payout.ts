// `payops payout`: input → checked plan → request_ids (from the input, a previous run of the same
// input, or new) journaled before anything is sent → confirmation → send → results. Loaded lazily
// by src/commands/payout.ts.

import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { approvalGate } from '../approval/gate.js';
import { payoutRowsDigest } from '../approval/rows-digest.js';
import { stateDir } from '../config/paths.js';
import { assertMayMoveMoney } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ExitCode, exitCodeForSignal, InputError, UsageError } from '../errors.js';
import { decidePayoutRun } from '../lifecycle/decide.js';
import { payoutGatewayIdentity, sameGateway } from '../lifecycle/identity.js';
import { whileInterruptible } from '../lifecycle/interrupt.js';
import { openRun, type RunJournal } from '../lifecycle/journal.js';
import { isSameInput, listRuns, readRun } from '../lifecycle/read.js';
import { beginRun, endRun, lockInput } from '../lifecycle/steps.js';
import { resolveFormat } from '../output/format.js';
import { openRunDocument } from '../output/run-document.js';
import { checkOutFile } from '../output/safe-file.js';
import { stdoutColor } from '../output/stdout-color.js';
import { parseWaitFlag } from '../wait/duration.js';
import { openEventTail } from '../wait/events-tail.js';
import { PAYOUT_OUTCOMES, payoutDocumentEnd } from './document.js';
import { loadCsv } from './load-csv.js';
import { derivedRequestId } from './meaning.js';
import {
  confirmPayouts,
  payoutRecord,
  writePayoutPlan,
  writePayoutResults,
  writePayoutSummary,
} from './payout-view.js';
import { loadPayoutRequest, type PayoutItem, type PayoutPlan, type PayoutPlanSummary } from './plan.js';
import { type PayoutJournalRecord, type PayoutRecord, parsePayoutRecord } from './records.js';
import {
  describeEarlier,
  earlierPayouts,
  journaledIds,
  type PriorPayout,
  possiblyDone,
  priorPayouts,
  repeated,
  reuseRequestIds,
} from './reuse.js';
import { type PayoutResultRow, sendPayouts } from './send.js';
import { waitForPayouts } from './wait-payouts.js';

/** `payops plan payout` (approval/make-plan.ts) reads a payout file as the run does. */
export { loadCsv };

export interface PayoutFlags {
  request?: string;
  file?: string;
  /** A workbook's sheet to read; default its first. */
  sheet?: string;
  resume?: boolean;
  /** Send payouts refused as changed or possibly done; never a second request_id for a journaled payout. */
  force?: boolean;
  /** Pay these payouts again on purpose: every payout without its own request_id gets a new one. */
  newRequestIds?: boolean;
  /** With resume: this run (from `payops runs resume ID`) rather than the newest unfinished one. */
  runId?: string;
  /** --file: amounts with a decimal comma; the file's encoding (tabular/read-as.ts). */
  decimalComma?: boolean;
  /** Wait for pending payouts to settle (wait-payouts.ts): a duration, or true for the default. */
  wait?: string | true;
  encoding?: string;
  /** A workbook's hidden rows and sheets: pay them too, or leave them out (tabular/hidden.ts hiddenLines). */
  includeHidden?: boolean;
  skipHidden?: boolean;
  /** --columns 'payment_amount=Amount,…' and --header-row N (tabular/read-as.ts withColumns). */
  columns?: string;
  headerRow?: number;
  /** --plan FILE: the approved plan this run must be (approval/gate.ts). */
  plan?: string;
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

/** Per-currency totals of these payouts. */
function totalsOf(items: readonly PayoutItem[]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const item of items) totals.set(item.currency, (totals.get(item.currency) ?? 0n) + item.minor);
  return totals;
}

export async function runPayout(ctx: Context, opts: PayoutFlags): Promise<number> {
  openRunDocument(ctx, 'payout', PAYOUT_OUTCOMES);
  const waitMs = parseWaitFlag(opts.wait);
  if ((opts.request === undefined) === (opts.file === undefined)) {
    throw new UsageError(
      'give exactly one of --request FILE.json (one payout) or --file FILE.csv (one per row)',
    );
  }
  if (opts.resume && (opts.force || opts.newRequestIds)) {
    throw new UsageError(
      `--resume and ${opts.force ? '--force' : '--new-request-ids'} contradict each other`,
      {
        hint: '--resume continues a run with its request_ids; --new-request-ids sends new payouts with new ones',
      },
    );
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
  // As for bulk runs: one process at a time per input and gateway, from choosing the run to its end;
  // the input by what its payouts mean, so two copies of one file saved differently wait too.
  if (identity && !ctx.globals.dryRun) {
    ctx.onClose(
      await lockInput(
        state,
        { key: plan.contentKey, op: PAYOUT_OP, gatewayIdentity: identity },
        plan.displayFile,
      ),
    );
  }

  let resumedJournal: RunJournal<PayoutJournalRecord> | undefined;
  let settled = new Map<number, PayoutResultRow>();
  let prior: PriorPayout[] = [];
  let reusedFrom: { runId: string; createdAt: string } | undefined;

  // Payout runs at this gateway and account, newest first (the runs folder is read once); the
  // gateway compared by meaning (lifecycle/identity.ts), so runs recorded under another spelling count.
  const here = identity
    ? (await listRuns(state)).filter(
        (r) => r.header.op === PAYOUT_OP && sameGateway(r.header.gatewayIdentity, identity),
      )
    : [];
  // Runs of the same payouts: by what they mean (headers since issue 23), else by the same bytes.
  const input = { content: plan.contentKey, sha256: plan.sha256 };
  const sameInput = here.filter((r) => isSameInput(r.header, input));
  const decision = decidePayoutRun({
    sameInput,
    nearby: here.filter((r) => !sameInput.includes(r)),
    // The newest run of this file (same path, or the same payouts in any file).
    latest: !opts.resume
      ? here.find((r) => r.header.file === plan.file || isSameInput(r.header, input))
      : undefined,
    resume: Boolean(opts.resume),
    force: Boolean(opts.force),
    newRequestIds: Boolean(opts.newRequestIds),
    runId: opts.runId,
    what: plan.displayFile,
  });
  if (decision.action === 'refuse') throw decision.error;
  // Four-eyes approval (approval/gate.ts): the one call; it refuses before anything is sent.
  const approval = await approvalGate(ctx, config, {
    op: PAYOUT_OP,
    identity,
    content: plan.contentKey,
    rowsDigest: async () => payoutRowsDigest(plan.items),
    rows: plan.items.length,
    totals: totalsOf(plan.items),
    label: plan.displayFile,
    planPath: opts.plan,
    dryRun: Boolean(ctx.globals.dryRun),
    resuming: decision.action === 'resume' ? decision.run.header : undefined,
    beyond: [...(opts.force ? ['--force'] : []), ...(opts.newRequestIds ? ['--new-request-ids'] : [])],
  });
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
    // The run's own results file is written again, whole, unless another --out is given: left as
    // it was, it said `unknown` for payouts the resume settled (issue 24, item 4).
    const own = run.header.out;
    if (ctx.globals.out === undefined && own !== undefined && !ctx.globals.dryRun) {
      ctx.globals.out = own;
      await checkOutFile(
        ctx.io.cwd,
        own,
        [
          { flag: '--file', path: opts.file },
          { flag: '--request', path: opts.request },
        ],
        ctx.io.env,
      );
      ctx.log.info(`payops: the results go to ${own}, as the run's first process wrote them`);
    }
  }
  // Every payout the other runs of this home at this gateway planned, newest run first: a payout
  // one of them had keeps its request_id (--force included), and an edited one is found.
  const earlier = decision.action === 'resume' ? [] : await earlierPayouts(state, here);
  if (decision.action === 'new' && decision.reuseFrom) {
    const last = decision.reuseFrom;
    prior = earlier.filter((p) => p.runId === last.runId);
    reusedFrom = { runId: last.runId, createdAt: last.header.createdAt };
  }

  try {
    const journaled = opts.newRequestIds ? new Map<string, string>() : journaledIds(earlier);
    const reuse = reuseRequestIds(
      plan.items,
      prior,
      (item) => {
        const known = item.key === undefined ? undefined : journaled.get(item.key);
        if (known !== undefined) return { id: known, from: 'journal' };
        // Derived from meaning, so a copy run from another home sends the same id; random where no
        // later run can be at the same gateway (an in-process sandbox), or when asked to pay again.
        if (identity === undefined || opts.newRequestIds || item.key === undefined) return randomUUID();
        return { id: derivedRequestId(identity, item.key, 0), from: 'derived' };
      },
      { file: plan.displayFile, runId: reusedFrom?.runId ?? '' },
    );
    if (reuse.conflicts.length > 0 && !opts.force) {
      throw new InputError(
        `${plan.displayFile} changed since run ${reusedFrom?.runId}, and sending it could pay someone twice; nothing was sent`,
        reuse.conflicts,
      );
    }
    // An edited copy of a payout already made gets a new request_id: refused below unless --force
    // (decided when the run began, so not asked again on --resume).
    const maybeDone = decision.action === 'resume' ? [] : possiblyDone(plan.items, earlier);
    const toSend = plan.items.filter((item) => !settled.has(item.line));
    const summary: PayoutPlanSummary = {
      plan,
      toSend: toSend.length,
      settled: settled.size,
      // --sandbox: the sandbox's demo credentials, not the profile's (issue 15).
      profile: config.sandbox ? '' : config.profile,
      // Settings from the environment named no profile: the plan names the merchant and account.
      profileUsed: Object.values(config.sources).includes('profile'),
      merchantId: config.merchantId,
      accountId: config.accountId,
      baseUrl: config.baseUrl || '(in-process sandbox)',
      totalsToSend: totalsOf(toSend),
      ...(reusedFrom && reuse.reused > 0
        ? { reusedFrom: { ...reusedFrom, count: reuse.reused }, resume: Boolean(opts.resume) }
        : {}),
      fromEarlierRuns: plan.items.filter((i) => i.requestIdFrom === 'journal').length - reuse.reused,
      possiblyDone: maybeDone.map((m) => ({ line: m.line, earlier: m.earlier.map(describeEarlier) })),
      ...(opts.newRequestIds ? { newRequestIds: { repeats: repeated(plan.items, earlier) } } : {}),
      force: Boolean(opts.force),
    };
    const format = resolveFormat(ctx.globals, ctx.io);

    if (ctx.globals.dryRun) {
      // --output json: the run document (state dry_run) holds the planned payouts as its rows.
      await writePayoutPlan(ctx.io, summary, {
        format,
        color: stdoutColor(ctx),
        ...(ctx.runDocument ? { document: ctx.runDocument } : {}),
      });
      return ExitCode.ok;
    }
    if (maybeDone.length > 0 && !opts.force && !opts.newRequestIds) {
      const n = maybeDone.length;
      throw new InputError(
        `${plan.displayFile}: ${n} payout${n === 1 ? '' : 's'} possibly done already (an earlier payout of this home to the same account, amount, currency and date); nothing was sent`,
        maybeDone.map((m) => ({
          file: plan.displayFile,
          line: m.line,
          message: `possibly done: the same beneficiary account, amount, currency and payment date as the payout of ${m.earlier.map(describeEarlier).join('; ')}`,
          expected:
            'the row as it was paid (it then keeps its request_id), the row left out, or --force to pay it as a new payout',
        })),
      );
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
      journal = await beginRun<PayoutJournalRecord>(
        state,
        {
          op: PAYOUT_OP,
          file: plan.file,
          label: plan.displayFile,
          sha256: plan.sha256,
          content: plan.contentKey,
          profile: config.profile,
          baseUrl: client.baseUrl,
          merchantId: config.merchantId,
          accountId: config.accountId,
          ...(identity ? { gatewayIdentity: identity } : {}),
          rows: plan.items.length,
          inputKind: plan.kind,
          // The results file, absolute: a resume writes it again (issue 24, item 4).
          ...(ctx.globals.out ? { out: resolve(ctx.io.cwd, ctx.globals.out) } : {}),
          // How the CSV was read, so that `runs resume ID` reads it the same way.
          ...(plan.readAs ? { readAs: JSON.stringify(plan.readAs) } : {}),
          ...approval.header,
        },
        approval.runId ? { runId: approval.runId } : {},
      );
      // The plan's registry entry says its run began (approval/registry.ts) before anything is sent.
      await approval.begun?.();
      // Every request_id is on disk before the first payout leaves: a re-run or --resume finds them.
      await journal.append({
        type: 'plan',
        items: plan.items.map((i) => ({
          line: i.line,
          request_id: String(i.request.request_id),
          from: i.requestIdFrom,
          ...(i.key === undefined ? {} : { key: i.key }),
          ...(i.match === undefined ? {} : { match: i.match }),
        })),
      });
    }
    const doc = ctx.runDocument;
    if (doc) doc.runId = journal.runId;

    let sent: PayoutResultRow[] = [];
    // Opened before the first payout leaves: an event journaled while its answer is on the way is seen.
    const tail = waitMs === undefined ? undefined : await openEventTail(state);
    // The signal that stopped the run (lifecycle/interrupt.ts), if one did: its own exit code.
    let stoppedBy: unknown;
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
        const w = { client, journal, concurrency: ctx.globals.concurrency ?? config.concurrency };
        if (tail && waitMs)
          sent = await waitForPayouts(ctx, toSend, sent, { ...w, waitMs, tail, signal, abandon: now });
      } catch (error) {
        failed = { error };
      }
      if (signal.aborted) stoppedBy = signal.reason;
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
      if (doc) doc.outcome = payoutDocumentEnd(all, counts, { stoppedBy, failed: failed !== undefined });
      const ended = await endRun(journal, { type: open === 0 ? 'finished' : 'interrupted', counts }).then(
        () => undefined,
        (err: unknown) => err,
      );
      if (failed) throw failed.error;
      // The results too (an --out file is renamed into place) before a Ctrl-C may end the process.
      // --output json on stdout: inside the run's document.
      if (doc && !ctx.globals.out) for (const r of rows()) await doc.row(payoutRecord(r));
      else
        await writePayoutResults(ctx.io, rows(), {
          format,
          color: stdoutColor(ctx),
          ...(ctx.globals.out ? { out: ctx.globals.out } : {}),
        });
      return ended;
    });
    const shown = rows();
    const unsent = plan.items.length - shown.length;
    writePayoutSummary(ctx.io, shown, { runId: journal.runId, plan, unsent });
    if (unjournaled !== undefined) throw unjournaled;
    return stoppedBy !== undefined ? exitCodeForSignal(stoppedBy) : payoutExitCode(shown);
  } catch (err) {
    await resumedJournal?.close().catch(() => {});
    throw err;
  }
}
