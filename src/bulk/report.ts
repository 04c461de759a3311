// The words a person reads about a bulk run — the plan before money moves, the summary after,
// the command that resumes it — as text lines. Pure: callers hand them to the logger (stderr).
// Names the user chose (the input file, the results file, the profile) are shown through quoteName:
// as they are when plain, quoted and escaped when they hold spaces or escape sequences.
import { SANDBOX_NOTE } from '../context.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { formatMoneyTotals } from '../money/amount.js';
import { formatCount, plural, renderFacts, renderOutcomes } from '../output/summary.js';
import { quoteName } from '../quote.js';
import type { StopReason } from './engine.js';
import { OPERATIONS } from './operations.js';
import type { BulkPlan } from './plan.js';
import { OUTCOMES } from './results.js';
import type { Outcome, RunTotals } from './types.js';

export interface PlanView {
  plan: BulkPlan;
  runId: string;
  profile: string;
  baseUrl: string;
  merchantId: string;
  accountId: string;
  sandbox: boolean;
  concurrency: number;
  dryRun: boolean;
  /** Resuming: rows already settled by the earlier process(es). */
  resume?: { settledRows: number; pendingChunks: number; createdAt: string };
  /** A note about earlier runs of the same input (dry-run, --force). */
  note?: string;
  /** What the gateway showed before the run; absent when it could not be asked (a dry run without a key). */
  preflight?: { done: number; skip: boolean; force: boolean };
  /** How lost answers are settled (--settle-time, --max-attempts). */
  policy?: { settleMs: number; maxAttempts: number };
}

const n = formatCount;

export function planLines(v: PlanView): string[] {
  const { plan } = v;
  const spec = OPERATIONS[plan.op];
  const lines: string[] = [];
  const head = v.dryRun ? 'dry run — nothing will be sent' : v.resume ? 'resuming run' : 'plan';
  lines.push(
    `${head}: ${spec.words.verb} ${n(plan.rows)} order${plan.rows === 1 ? '' : 's'} from ${quoteName(plan.source.label)} in ${n(plan.requests)} request${plan.requests === 1 ? '' : 's'} of up to ${plan.chunkSize}`,
  );
  lines.push(`  ${spec.words.moneyLabel}: ${formatMoneyTotals(plan.moving)}`);
  // What moves is not the order amount (a refund's amount): show the order amounts as well.
  if (spec.moves !== 'amountMinor') lines.push(`  order amounts: ${formatMoneyTotals(plan.amounts)}`);
  lines.push(
    `  gateway: ${v.sandbox ? `in-process sandbox ${v.baseUrl}` : v.baseUrl} · merchant ${v.merchantId} · account ${v.accountId} · profile ${quoteName(v.profile)}`,
  );
  lines.push(`  concurrency ${v.concurrency} · input SHA-256 ${plan.sha256.slice(0, 16)}…`);
  lines.push(...readingLines(plan));
  if (v.resume) {
    lines.push(
      `  run ${quoteName(v.runId)} (started ${v.resume.createdAt}): ${n(v.resume.settledRows)} rows already settled; the rest is reconciled first, then sent`,
    );
  } else if (!v.dryRun) {
    lines.push(`  run id: ${quoteName(v.runId)}`);
  }
  if (v.preflight) {
    const { done, skip, force } = v.preflight;
    const rows = `${n(done)} row${done === 1 ? '' : 's'}`;
    const already = `already ${spec.words.done} at the gateway`;
    // A resumed run shows what the gateway said when the run began; it asks again before sending.
    const when = v.resume ? 'checked at the gateway when the run began' : 'checked at the gateway';
    lines.push(
      (done === 0
        ? `  checked at the gateway: no row is ${spec.words.done} yet`
        : skip
          ? `  checked at the gateway: ${rows} ${already}: skipped (--skip-done); ${n(plan.rows - done)} to send (the totals above count every row)`
          : force
            ? `  checked at the gateway: ${rows} ${already}: sent again (--force)`
            : `  checked at the gateway: ${rows} ${already}: a run refuses them unless --skip-done or --force`
      ).replace('checked at the gateway', when),
    );
    if (v.resume) lines.push('  rows not sent yet are checked at the gateway again before they are sent');
  }
  if (v.policy && !v.dryRun) {
    const { settleMs, maxAttempts } = v.policy;
    const wait = settleMs % 1000 === 0 ? `${settleMs / 1000}s` : `${settleMs}ms`;
    lines.push(
      `  lost answers: asked at the gateway, again after ${wait}, then sent again — at most ${maxAttempts} request${maxAttempts === 1 ? '' : 's'} per row (--settle-time, --max-attempts)`,
    );
  }
  if (v.note) lines.push(`  note: ${v.note}`);
  return lines;
}

/** How the file was read: its decimal mark and why, its encoding, reasons given by flag, ids to check. */
function readingLines(plan: BulkPlan): string[] {
  const lines: string[] = [];
  const r = plan.readAs;
  if (r && !plan.source.inline) {
    const mark = r.mark === ',' ? 'decimal comma (12,50)' : 'decimal point (12.50)';
    const encoding = r.encoding === 'utf-8' ? '' : ` · encoding ${r.encoding}`;
    lines.push(`  amounts read with a ${mark}: ${r.why}${encoding}`);
  }
  const filled = plan.reasonFilled ?? 0;
  if (filled > 0 && r?.refundReason !== undefined) {
    lines.push(
      `  refund_reason ${JSON.stringify(r.refundReason)} (--refund-reason) given to ${n(filled)} row${filled === 1 ? '' : 's'} without one`,
    );
  }
  for (const w of plan.warnings ?? []) {
    const where = w.line === undefined ? '' : `${quoteName(plan.source.label)}:${w.line}: `;
    lines.push(`  warning: ${where}${w.message}; the gateway check shows whether the order exists`);
  }
  return lines;
}

export function confirmQuestion(v: PlanView): string {
  const { plan } = v;
  const verb = OPERATIONS[plan.op].words.verb;
  const what = `${n(plan.rows)} order${plan.rows === 1 ? '' : 's'} (${formatMoneyTotals(plan.moving)}) at ${v.sandbox ? 'the sandbox' : v.baseUrl}?`;
  return v.resume
    ? `Resume run ${quoteName(v.runId)} and ${verb} the rest of ${what}`
    : `${verb[0]!.toUpperCase()}${verb.slice(1)} ${what}`;
}

const LABEL: Record<Outcome, string> = {
  succeeded: 'succeeded',
  already_done: 'already done',
  failed: 'failed',
  unknown: 'unknown',
  not_sent: 'not sent',
  duplicated: 'DUPLICATED',
};

export interface SummaryView {
  op: BatchOperation;
  runId: string;
  totals: RunTotals;
  resultsFile?: string;
  journalDir: string;
  /** Set when the run stopped early. */
  stopped?: StopReason;
  /** A second Ctrl-C abandoned the requests in flight. */
  abandoned?: boolean;
  resumeCommand?: string;
  /** False for an in-process sandbox: it is gone when the process ends. */
  resumable: boolean;
  /** The in-process sandbox served the run: the first line says so. */
  sandbox?: boolean;
}

export function summaryLines(v: SummaryView): string[] {
  const { counts, money } = v.totals;
  const total = OUTCOMES.reduce((sum, o) => sum + counts[o], 0);
  const lines = [
    `${v.op} run ${quoteName(v.runId)}: ${plural(total, 'row')}${v.sandbox ? ` (${SANDBOX_NOTE})` : ''}`,
  ];
  const outcomes = renderOutcomes(
    OUTCOMES
      // "already done" and "duplicated" only when there are such rows.
      .filter((o) => (o !== 'already_done' && o !== 'duplicated') || counts[o] > 0)
      .map((o) => ({
        outcome: LABEL[o],
        count: counts[o],
        totals: money[o],
      })),
  );
  lines.push(
    ...outcomes
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((l) => `  ${l}`),
  );
  const facts = renderFacts([
    ['results', v.resultsFile === undefined ? undefined : quoteName(v.resultsFile)],
    ['journal', quoteName(v.journalDir)],
  ]);
  lines.push(
    ...facts
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((l) => `  ${l}`),
  );
  if (counts.unknown > 0) {
    lines.push(
      `  ${plural(counts.unknown, 'row')} with an unknown outcome: sent, and the gateway could not be asked yet (or the run stopped before it asked). They were NOT sent again; resuming asks first.`,
    );
  }
  if (counts.duplicated > 0) {
    lines.push(
      `  ${plural(counts.duplicated, 'row')} DUPLICATED: the gateway applied ${counts.duplicated === 1 ? 'it' : 'them'} more than once (a lost request committed late); the detail names every reference — ask the gateway to reverse the extra ones.`,
    );
  }
  if (v.stopped === 'interrupted')
    lines.push(
      v.abandoned
        ? '  interrupted twice: the requests in flight were abandoned; their rows stay unknown until the run is resumed, which asks the gateway before sending anything.'
        : '  interrupted: the requests in flight finished and were journaled.',
    );
  if (v.stopped === 'unreachable') lines.push('  stopped: the gateway could not be reached.');
  if (v.stopped === 'auth')
    lines.push('  stopped: the gateway refused the credentials; rows not processed are marked not_sent.');
  if (v.stopped === 'route')
    lines.push(
      '  stopped: the gateway address or the proxy needs fixing (see below); rows not processed are marked not_sent.',
    );
  if (v.stopped === 'journal')
    lines.push('  stopped: the journal could not be written; nothing more was sent.');
  if ((counts.unknown > 0 || counts.not_sent > 0 || v.stopped) && v.resumeCommand) {
    lines.push(
      v.resumable
        ? `  resume with: ${v.resumeCommand}`
        : '  this run used an in-process sandbox, which is gone: it cannot be resumed.',
    );
  }
  return lines;
}

// Quoting an argument of the resume command for a shell: one definition, with the other quoting.
export { shellQuote } from '../quote.js';
