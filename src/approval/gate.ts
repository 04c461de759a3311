// Run only what was approved (issue 28 item 5, docs/approvals.md): the one call a money-moving run
// (bulk/run-bulk.ts, payout/run-payout.ts) makes before anything is sent. With --plan: the plan's
// operation, gateway and content must be this run's, every signature must verify (verify.ts, the
// same check `payops approve` makes), approvals must meet the profile's `approvals`, no one may have
// rejected it, it must not have expired or been used by another run (registry.ts). Without --plan:
// the profile's approval_required (policy.ts) decides whether the run may go ahead. A resume keeps
// the plan its run started with. Anything else is refused before anything is sent.
import { resolve } from 'node:path';
import { stateDir } from '../config/paths.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import { InputError, type InputProblem, UsageError } from '../errors.js';
import { sameGateway } from '../lifecycle/identity.js';
import { newRunId } from '../lifecycle/paths.js';
import { findRunsAt, listRuns, readRun } from '../lifecycle/read.js';
import type { RunHeader } from '../lifecycle/records.js';
import { formatAmount, formatMoney, parseAmount } from '../money/amount.js';
import { quote } from '../quote.js';
import { type PlanBody, type PlanFile, planDigest, type RunApproval } from './plan-doc.js';
import {
  type ApprovalPolicy,
  approvalNeeded,
  type PolicyVerdict,
  parsePolicy,
  thresholdOf,
} from './policy.js';
import {
  began,
  claimPlan,
  dropClaim,
  markBegun,
  markFinished,
  PLAN_ID,
  type PlanUse,
  readUse,
} from './registry.js';
import { approversPath, loadApprovers, readPlanFile, type VerifiedPlan, verifyPlan, who } from './verify.js';

/** What the gate needs to know of the run it guards. */
export interface GatedRun {
  op: PlanBody['op'];
  /** Who the money moves at (lifecycle/identity.ts); undefined: a gateway no plan can name. */
  identity: string | undefined;
  /** What the input means: bulk/plan/content-key.ts, payouts payout/meaning.ts. */
  content: string;
  /**
   * The input's rows digest (rows-digest.ts), asked for only when the run is given --plan: a
   * second read of the file that a run without a plan never pays. Undefined: refused with --plan.
   */
  rowsDigest?: () => Promise<string>;
  rows: number;
  /** What the run moves, currency → minor units. */
  totals: ReadonlyMap<string, bigint>;
  /** The input file as the user named it; undefined for one order given by flags. */
  label: string | undefined;
  /** --plan FILE, as given. */
  planPath?: string | undefined;
  dryRun: boolean;
  /** The run a resume continues: it keeps the plan it started with. */
  resuming?: RunHeader | undefined;
  /** --skip-done given (bulk): a plan made with it runs with it. */
  skipDone?: boolean;
  /** Flags given that send more than any plan shows (--force; payouts --new-request-ids): refused with --plan. */
  beyond?: string[];
}

/** What the run takes from the gate. */
export interface Approval {
  /** Spread into a new run's header: the plan it runs (audit, resume). */
  header: { approval?: RunApproval; moving?: Record<string, string> };
  /** The id the new run must take: the registry names it as the plan's run already. */
  runId?: string;
  /** Called once the new run's journal exists, before anything is sent: the registry says it began. */
  begun?: () => Promise<void>;
}

/** The gate: throws (exit 2; a damaged registry, exit 4) when the run must not go ahead; nothing is sent. */
export async function approvalGate(ctx: Context, config: ResolvedConfig, run: GatedRun): Promise<Approval> {
  const state = stateDir(ctx.io.env);
  if (run.resuming) return resumed(ctx, config, state, run, run.resuming);
  const planPath = run.planPath;
  // Recorded in the new run's header: what later runs without a plan add up (unplannedVerdict).
  const moving = movingText(run.totals);
  if (planPath === undefined) {
    const policy = parsePolicy(config.approvalRequired);
    let verdict = approvalNeeded(policy, run.totals);
    if (!verdict.needed && policy.kind === 'over') verdict = await unplannedVerdict(state, policy, run);
    if (verdict.needed) {
      const how = `payops plan ${run.op} ${run.label ?? `${run.op}.csv`} --out ${run.op}.plan`;
      if (run.dryRun) {
        ctx.log.info(`approval: a run needs an approved plan (${verdict.why}): ${how}, then --plan`);
        return { header: {} };
      }
      throw new UsageError(
        `the profile ${quote(config.profile)} requires an approved plan for this run (${verdict.why}); --yes does not replace one, and nothing was sent`,
        {
          hint: `make a plan with \`${how}\`, have it approved (\`payops approve ${run.op}.plan\`, by someone else), then run with --plan ${run.op}.plan (docs/approvals.md)`,
        },
      );
    }
    return { header: { moving } };
  }

  const source = quote(planPath);
  const file = await readPlanFile(resolve(ctx.io.cwd, planPath));
  const verified = await checkedPlan(ctx, config, file, source);
  const { plan } = verified;
  if (!PLAN_ID.test(plan.planId))
    throw new UsageError(`${source}: the plan id is not one payops makes; nothing was sent`);
  // A used plan is refused as used, whatever else is wrong with it now.
  const earlier = await unusedOrStale(state, plan, source);
  const misfit = misfits(plan, run, source);
  // The content key is not cryptographic: the rows digest decides whether these are the rows approved.
  if (plan.content === run.content) {
    const now = run.rowsDigest ? await run.rowsDigest() : undefined;
    if (now !== plan.rowsDigest) {
      misfit.push({
        file: planPath,
        field: 'rowsDigest',
        message: `the file's rows digest differs from the plan's (${plan.rowsDigest.slice(0, 16)}… → ${now === undefined ? 'none computed' : `${now.slice(0, 16)}…`}) although its content key is the same: its rows are not the rows approved`,
      });
    }
  }
  if (misfit.length > 0) {
    const flagsOnly = misfit.every((p) => p.field?.startsWith('--'));
    throw new InputError(
      `the plan ${source} does not fit this run (${misfit.map((p) => p.field).join(', ')}); nothing was sent`,
      misfit,
      {
        hint: flagsOnly
          ? 'run it with the flags the plan was made with, without --force or --new-request-ids'
          : `make a plan for this very file and gateway: payops plan ${run.op} ${run.label ?? 'FILE'} --out ${planName(run.label)}`,
      },
    );
  }
  checkApprovals(verified, approvalsNeeded(config.approvals), source);

  const approval: RunApproval = {
    planId: plan.planId,
    planDigest: verified.digest,
    maker: { name: verified.maker.name, fingerprint: verified.maker.fingerprint },
    approvers: verified.approvals.map((a) => ({ name: a.name, fingerprint: a.fingerprint, at: a.at })),
  };
  ctx.log.info(
    `approved plan ${planPath} (${plan.planId}): made by ${who(verified.maker)}, approved by ${verified.approvals.map(who).join(', ')}`,
  );
  if (run.dryRun) return { header: { approval, moving } };
  const use: PlanUse = {
    planId: plan.planId,
    planDigest: verified.digest,
    op: run.op,
    runId: newRunId(),
    startedAt: new Date().toISOString(),
  };
  if (!(await claimPlan(state, use, earlier))) {
    throw new UsageError(`the plan ${source} was just taken by another run; nothing was sent`, {
      hint: 'see `payops runs list`',
    });
  }
  ctx.onClose(() => settle(state, plan.planId, use.runId));
  return {
    header: { approval, moving },
    runId: use.runId,
    begun: () => markBegun(state, plan.planId, use.runId),
  };
}

/** How far back runs made without a plan count towards approval_required (docs/approvals.md). */
const WINDOW_MS = 24 * 60 * 60 * 1000;

function movingText(totals: ReadonlyMap<string, bigint>): Record<string, string> {
  return Object.fromEntries(
    [...totals].map(([currency, minor]) => [currency, formatAmount(minor, currency)]),
  );
}

/**
 * A threshold is per run, so a file split in two would pass it: this run's total, with what runs of
 * this operation made without a plan at this gateway by this home moved in the last 24 hours (their
 * headers' `moving`; none recorded counts as 0), is judged against the threshold, per currency.
 */
async function unplannedVerdict(
  state: string,
  policy: ApprovalPolicy,
  run: GatedRun,
): Promise<PolicyVerdict> {
  const alone = { needed: false, why: 'within approval_required' };
  if (run.identity === undefined) return alone;
  const since = Date.now() - WINDOW_MS;
  const earlier = (await findRunsAt(state, run.op, run.identity)).filter(
    (r) => !r.header.approval && r.header.moving && Date.parse(r.header.createdAt) >= since,
  );
  for (const [currency, minor] of run.totals) {
    let before = 0n;
    const ids: string[] = [];
    for (const r of earlier) {
      const text = r.header.moving?.[currency];
      const amount = text === undefined ? undefined : parseAmount(text, currency);
      if (!amount?.ok || amount.minor === 0n) continue;
      before += amount.minor;
      ids.push(r.runId);
    }
    if (before === 0n || !approvalNeeded(policy, new Map([[currency, minor + before]])).needed) continue;
    const runs = `run${ids.length === 1 ? '' : 's'} ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`;
    return {
      needed: true,
      why: `this run moves ${formatMoney(minor, currency)}; with the ${formatMoney(before, currency)} moved without a plan at this gateway in the last 24 hours (${runs}), that is ${formatMoney(minor + before, currency)}, above approval_required ${thresholdOf(policy, currency)}`,
    };
  }
  return alone;
}

/**
 * A money-moving request no plan can describe (`payops call`): refused whenever the profile asks
 * for approval at all — a threshold cannot be judged on a body payops does not understand, and a
 * cron job under approval_required must run approved plans and nothing else.
 */
export function refuseUnplanned(config: ResolvedConfig, what: string): void {
  const policy = parsePolicy(config.approvalRequired);
  if (policy.kind === 'never') return;
  throw new UsageError(
    `${what} can move money and no plan can approve it, and the profile ${quote(config.profile)} requires approved plans (approval_required ${policy.kind === 'always' ? 'always' : policy.text}); nothing was sent`,
    {
      hint: 'use the command for the operation with --plan (payops plan, payops approve; docs/approvals.md), or a profile without approval_required',
    },
  );
}

/** verifyPlan against the profile's approvers file, its refusal said as this run's. */
async function checkedPlan(
  ctx: Context,
  config: ResolvedConfig,
  file: PlanFile,
  source: string,
): Promise<VerifiedPlan> {
  // As `payops approve` finds it: a relative path from the config folder, whatever the current one.
  const approvers = await loadApprovers(approversPath(config.approversFile, ctx.io.env, config.profile));
  try {
    return verifyPlan(file, approvers, new Date(), `the plan ${source}`);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(`${err.message}; nothing was sent`, err.hint ? { hint: err.hint } : {});
  }
}

/** What differs between the plan and this run: operation, gateway, content (with rows and totals). */
function misfits(plan: PlanBody, run: GatedRun, source: string): InputProblem[] {
  const problems: InputProblem[] = [];
  const at = (field: string, message: string): void => {
    problems.push({ file: source.slice(1, -1), field, message });
  };
  if (plan.op !== run.op) at('operation', `the plan is for ${plan.op}, this run is ${run.op}`);
  if (!sameGateway(plan.gateway, run.identity)) {
    at(
      'gateway',
      `the plan is for ${gatewayWords(plan.gateway)}; this run is at ${gatewayWords(run.identity)}`,
    );
  }
  for (const flag of run.beyond ?? []) {
    at(
      flag,
      `${flag} sends what the gateway or earlier runs show done, which the approvers did not approve; a plan runs as approved`,
    );
  }
  if (plan.skipDone && !run.skipDone) {
    at(
      '--skip-done',
      'the plan leaves out the rows the gateway showed done (--skip-done): run it with --skip-done',
    );
  }
  if (plan.content !== run.content) {
    const said: string[] = [];
    if (plan.rows !== run.rows) said.push(`${plan.rows} rows → ${run.rows} rows`);
    for (const [currency, text] of Object.entries(plan.totals)) {
      const planned = parseAmount(text, currency);
      const now = run.totals.get(currency) ?? 0n;
      if (!planned.ok || planned.minor !== now)
        said.push(
          `${planned.ok ? formatMoney(planned.minor, currency) : `${currency} ${text}`} → ${formatMoney(now, currency)}`,
        );
    }
    for (const [currency, minor] of run.totals) {
      if (!(currency in plan.totals)) said.push(`${currency} none → ${formatMoney(minor, currency)}`);
    }
    at(
      'content',
      `the file's content differs from the plan's${said.length > 0 ? `: ${said.join(', ')}` : ' (the same rows and totals, other values)'} — it was changed after the plan was made, or is another file`,
    );
  }
  return problems;
}

/** Where `payops plan` may write the plan of `label`: beside it, its extension `.plan`. */
function planName(label: string | undefined): string {
  if (label === undefined) return 'FILE.plan';
  const dot = label.lastIndexOf('.');
  return `${dot > label.lastIndexOf('/') + 1 ? label.slice(0, dot) : label}.plan`;
}

/** `URL merchant M account A` from an identity `URL|M|A`; one with more parts is an in-process sandbox. */
function gatewayWords(identity: string | undefined): string {
  const [url = '', merchant = '', account = '', ...rest] = identity?.split('|') ?? [];
  if (identity === undefined || rest.length > 0) {
    return 'an in-process sandbox, a new gateway every time (no plan can name it)';
  }
  return `${url} merchant ${merchant} account ${account}`;
}

/** How many approvals a plan needs: never fewer than one, whatever the profile holds (defence in depth). */
export function approvalsNeeded(approvals: number | undefined): number {
  return typeof approvals === 'number' && Number.isInteger(approvals) && approvals > 1 ? approvals : 1;
}

/** Enough distinct approvers, and no rejection (verifyPlan already refused the maker and strangers). */
function checkApprovals(v: VerifiedPlan, needed: number, source: string): void {
  const [rejected] = v.rejections;
  if (rejected) {
    throw new UsageError(
      `the plan ${source} was rejected by ${who(rejected)} at ${rejected.at}${rejected.reason ? `: ${quote(rejected.reason)}` : ''}; nothing was sent`,
      { hint: 'a rejected plan never runs: make a new plan once the reason is dealt with' },
    );
  }
  const distinct = new Set(v.approvals.map((a) => a.fingerprint)).size;
  if (distinct < needed) {
    throw new UsageError(
      `the plan ${source} has ${distinct} approval${distinct === 1 ? '' : 's'}; the profile requires ${needed} (approvals), by people other than the maker; nothing was sent`,
      {
        hint: `have ${needed - distinct} more approver${needed - distinct === 1 ? '' : 's'} run \`payops approve\` on it`,
      },
    );
  }
}

/**
 * The registry's entry for this plan when it may be replaced (a claim whose run never began), or
 * undefined when there is none; refuses a plan whose run exists, finished or not.
 */
async function unusedOrStale(state: string, plan: PlanBody, source: string): Promise<PlanUse | undefined> {
  const use = await readUse(state, plan.planId);
  if (!use) return undefined;
  const run = (await listRuns(state)).find((r) => r.runId === use.runId);
  if (!run && began(use)) {
    throw new UsageError(
      `the plan ${source} was used: the plan's run ${use.runId} is missing from this home; nothing was sent`,
      {
        hint: `put the run folder back (${quote(`runs/${use.runId}`)} in the state folder) to resume or show it; a plan runs once: to send again, make and approve a new plan`,
      },
    );
  }
  // A claim whose run never began (the process ended before its journal): it sent nothing.
  if (!run) return use;
  const on = run.header.createdAt.slice(0, 19).replace('T', ' ');
  if (run.state === 'finished') {
    throw new UsageError(
      `the plan ${source} was used by run ${run.runId} on ${on} UTC, which finished; nothing was sent`,
      {
        hint: `an approved plan runs once: see its results with \`payops runs show ${run.runId}\`; to send again, make and approve a new plan`,
      },
    );
  }
  throw new UsageError(
    `the plan ${source} is in use by run ${run.runId} of ${on} UTC, which is not finished; nothing was sent`,
    {
      hint: `continue that run: \`payops runs resume ${run.runId}\` (or the same command with --resume); it keeps its plan`,
    },
  );
}

/** When the run ends: the registry says finished, or gives up a claim whose run never began. */
async function settle(state: string, planId: string, runId: string): Promise<void> {
  const run = (await listRuns(state).catch(() => undefined))?.find((r) => r.runId === runId);
  if (!run) {
    await dropClaim(state, planId, runId);
    return;
  }
  if (run.state === 'finished') {
    // The chain's head kept with the plan's use: the journal alone cannot show its end cut away.
    const { chain } = await readRun(state, runId, undefined, { chain: 'report' });
    await markFinished(state, planId, runId, run.terminal?.at ?? new Date().toISOString(), chain.head);
  }
}

/**
 * A resume keeps its run's plan: nothing new is asked of it (the run was approved when it began,
 * and an expiry since must not strand money half moved). --plan given must be that plan. A run begun
 * before approval_required applied resumes without one.
 */
async function resumed(
  ctx: Context,
  config: ResolvedConfig,
  state: string,
  run: GatedRun,
  header: RunHeader,
): Promise<Approval> {
  const kept = header.approval;
  if (run.planPath !== undefined) {
    const file = await readPlanFile(resolve(ctx.io.cwd, run.planPath));
    const digest = planDigest(file.plan);
    if (!kept) {
      throw new UsageError(
        `run ${header.runId} was started without a plan, so --plan ${quote(run.planPath)} cannot be its plan; nothing was sent`,
        { hint: 'resume it without --plan' },
      );
    }
    if (digest !== kept.planDigest) {
      throw new UsageError(
        `run ${header.runId} was started from plan ${kept.planId}, not from ${quote(run.planPath)} (${file.plan.planId}); nothing was sent`,
        { hint: 'resume it without --plan: it keeps its own plan' },
      );
    }
  }
  if (kept) {
    ctx.log.info(
      `run ${header.runId} keeps its approved plan ${kept.planId}: made by ${who(kept.maker)}, approved by ${kept.approvers.map(who).join(', ')}`,
    );
    if (!run.dryRun) ctx.onClose(() => settle(state, kept.planId, header.runId));
  } else if (approvalNeeded(parsePolicy(config.approvalRequired), run.totals).needed) {
    ctx.log.info(
      `approval: run ${header.runId} began without a plan, before approval_required applied to it; it is resumed as it began`,
    );
  }
  return { header: {} };
}
