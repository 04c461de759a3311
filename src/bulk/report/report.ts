// The words a person reads about a bulk run — the plan before money moves, the summary after,
// the command that resumes it — as text lines. Pure: callers hand them to the logger (stderr).
// Names the user chose (the input file, the results file, the profile) are shown through quoteName:
// as they are when plain, quoted and escaped when they hold spaces or escape sequences.
import { DEFAULT_SETTLE_MS } from '../../config/keys.js';
import { SANDBOX_NOTE } from '../../context.js';
import type { BatchOperation } from '../../gateway/endpoints.js';
import { formatMoney, formatMoneyTotals, parseAmount } from '../../money/amount.js';
import { fitLines, formatCount, plural, renderFacts, renderOutcomes } from '../../output/summary.js';
import { quoteName, shellQuote, shownUrl } from '../../quote.js';
import { hiddenLines } from '../../tabular/hidden.js';
import type { StopReason } from '../engine/engine.js';
import { OPERATIONS } from '../operations.js';
import type { BulkPlan } from '../plan/plan.js';
import type { Outcome, RunTotals } from '../types.js';
import { OUTCOMES } from './results.js';

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
  resume?: {
    settledRows: number;
    pendingChunks: number;
    createdAt: string;
    /** What the rows left move, per currency: the plan's money line when resuming (issue 27). */
    movingLeft?: Map<string, bigint>;
  };
  /**
   * The new run's id is said once the run is confirmed (runIdLine), not in the plan: a plan refused
   * (no --yes, or No) left an id that never existed (issue 27).
   */
  runIdAfterConfirm?: boolean;
  /** A note about earlier runs of the same input (dry-run, --force). */
  note?: string;
  /** What the gateway showed before the run; absent when it could not be asked (a dry run without a key). */
  preflight?: {
    /** Rows done, those possibly done included. */
    done: number;
    /** Rows possibly done: a refund of the same amount with another reason. */
    possible?: number;
    /** Rows to send whose order has other refunds, with the balance left (a new run's check). */
    partly?: Array<[line: number, where: string]>;
    skip: boolean;
    force: boolean;
  };
  /** --no-check: the run asks the gateway nothing before sending (order query is IP-restricted). */
  noCheck?: boolean;
  /** How lost answers are settled (--settle-time, --max-attempts). */
  policy?: { settleMs: number; maxAttempts: number };
  /** The terminal's width: lines are wrapped at spaces to fit it (a command is never broken). */
  columns?: number;
}

const n = formatCount;
/** Rows whose order has other refunds, listed in the plan (the rest counted). */
const PARTLY_SHOWN = 20;

/** "12 orders", or "12 rows (11 orders)" when an order has several rows (partial refunds). */
function rowsAndOrders(plan: BulkPlan, rows = plan.rows): string {
  const orders = plan.orders ?? plan.rows;
  if (orders === plan.rows) return plural(rows, 'order');
  return `${plural(rows, 'row')} (${plural(orders, 'order')})`;
}

/** Rows a resumed run still has to settle. */
function rowsLeft(v: PlanView): number {
  return Math.max(0, v.plan.rows - (v.resume?.settledRows ?? 0));
}

export function planLines(v: PlanView): string[] {
  const { plan } = v;
  const spec = OPERATIONS[plan.op];
  const lines: string[] = [];
  const head = v.dryRun ? 'dry run — nothing will be sent' : v.resume ? 'resuming run' : 'plan';
  lines.push(
    `${head}: ${spec.words.verb} ${rowsAndOrders(plan)} from ${quoteName(plan.source.label)} in ${n(plan.requests)} request${plan.requests === 1 ? '' : 's'} of up to ${plan.chunkSize}`,
  );
  if (plan.reviews) {
    // A review moves no money itself: what matters is which orders are approved and which rejected.
    const { approve, reject, approveAmounts, rejectAmounts } = plan.reviews;
    if (approve > 0)
      lines.push(`  approve: ${plural(approve, 'order')} · ${formatMoneyTotals(approveAmounts)}`);
    if (reject > 0) lines.push(`  reject:  ${plural(reject, 'order')} · ${formatMoneyTotals(rejectAmounts)}`);
  } else {
    const left = v.resume?.movingLeft;
    lines.push(
      left
        ? `  ${spec.words.moneyLabel}: ${formatMoneyTotals(left)} (the ${plural(rowsLeft(v), 'row')} left; the whole file: ${formatMoneyTotals(plan.moving)})`
        : `  ${spec.words.moneyLabel}: ${formatMoneyTotals(plan.moving)}`,
    );
    // What moves is not the order amount (a refund's amount): show the order amounts as well, each
    // order's once however many rows it has.
    if (spec.moves !== 'amountMinor') {
      const orders = plan.orders ?? plan.rows;
      const per = orders === plan.rows ? '' : ` (${plural(orders, 'order')}, each counted once)`;
      lines.push(`  order amounts: ${formatMoneyTotals(plan.amounts)}${per}`);
    }
  }
  lines.push(
    v.sandbox
      ? `  gateway: in-process sandbox ${v.baseUrl} · merchant ${v.merchantId} · account ${v.accountId} (demo credentials; no profile used)`
      : `  gateway: ${shownUrl(v.baseUrl)} · merchant ${v.merchantId} · account ${v.accountId} · profile ${quoteName(v.profile)}`,
  );
  lines.push(`  concurrency ${v.concurrency} · input SHA-256 ${plan.sha256.slice(0, 16)}…`);
  lines.push(...readingLines(plan));
  lines.push(...hiddenLines(plan));
  if (v.resume) {
    const done = v.resume.settledRows;
    lines.push(
      `  run ${quoteName(v.runId)} (started ${v.resume.createdAt}): ${n(done)} of ${plural(plan.rows, 'row')} done, ${n(rowsLeft(v))} left${v.resume.movingLeft ? '' : "; the totals above are the whole file's"}`,
      '  rows left are reconciled at the gateway first, then sent',
    );
  } else if (!v.dryRun && !v.runIdAfterConfirm) {
    lines.push(`  run id: ${quoteName(v.runId)}`);
  }
  if (v.noCheck) {
    // What --no-check gives up, said before the confirmation (issue 24).
    const { verb, done } = OPERATIONS[plan.op].words;
    lines.push(
      `  not checked at the gateway (--no-check): rows already ${done} there are sent anyway — the gateway refuses a second ${verb} of an order (that row fails, nothing moves twice); a lost answer is settled with order query, which this machine may not make: its rows stay unknown until the run is resumed from a registered machine`,
    );
  }
  if (v.preflight) {
    const { done, skip, force } = v.preflight;
    const possible = v.preflight.possible ?? 0;
    const rowsOf = (k: number) => `${n(k)} row${k === 1 ? '' : 's'}`;
    const exact = done - possible;
    const rows = exact > 0 ? rowsOf(exact) : rowsOf(possible);
    // Rows possibly done (a refund of the same amount with another reason) are counted apart.
    const already = [
      ...(exact > 0 ? [`already ${spec.words.done}`] : []),
      ...(possible > 0
        ? [`${exact > 0 ? `and ${rowsOf(possible)} ` : ''}possibly already ${spec.words.done}`]
        : []),
    ]
      .join(' ')
      .concat(' at the gateway');
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
    const partly = v.preflight.partly ?? [];
    for (const [line, where] of partly.slice(0, PARTLY_SHOWN))
      lines.push(`  ${quoteName(plan.source.label)}:${line} ${where}`);
    if (partly.length > PARTLY_SHOWN)
      lines.push(`  … and ${n(partly.length - PARTLY_SHOWN)} more orders with other refunds`);
  }
  if (v.policy && !v.dryRun) {
    const { settleMs, maxAttempts } = v.policy;
    const wait = settleMs % 1000 === 0 ? `${settleMs / 1000}s` : `${settleMs}ms`;
    lines.push(
      `  lost answers: asked at the gateway, again after ${wait}, then sent again — at most ${maxAttempts} request${maxAttempts === 1 ? '' : 's'} per row (--settle-time, --max-attempts)`,
    );
    // A short settle time is allowed (a gateway known to commit at once), never silently: below
    // the gateway's commit delay a lost request is sent again and its rows refunded twice.
    if (settleMs < DEFAULT_SETTLE_MS)
      lines.push(
        `  caution: settle time ${wait} is below the default ${DEFAULT_SETTLE_MS / 1000}s: a gateway that applies a lost request later than that gets it a second time (a refund: money moved twice; docs/bulk.md §5)`,
      );
  }
  if (v.note) lines.push(`  note: ${v.note}`);
  return fitLines(lines, v.columns);
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
  const h = plan.header;
  if (h && (h.line > 1 || r?.headerRow !== undefined)) {
    const why = r?.headerRow !== undefined ? '--header-row' : 'the first row with the columns';
    lines.push(`  header: row ${h.line} (${why}${h.line > 1 ? '; the rows above it are left out' : ''})`);
  }
  if (h && h.matches.length > 0) {
    const list = (ms: typeof h.matches) => ms.map((m) => `${m.column} ← ${quoteName(m.header)}`).join(', ');
    const mapped = h.matches.filter((m) => m.how === 'mapped');
    const named = h.matches.filter((m) => m.how !== 'mapped');
    const parts = [
      ...(mapped.length > 0 ? [`${list(mapped)} (${r?.columnsFrom ?? '--columns'})`] : []),
      ...(named.length > 0 ? [`${list(named)} (by name)`] : []),
    ];
    lines.push(`  columns: ${parts.join('; ')}`);
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
  const where = `at ${v.sandbox ? 'the sandbox' : shownUrl(v.baseUrl)}?`;
  if (v.resume) {
    // What is left, not the whole file: the plan above says what is done.
    return `Resume run ${quoteName(v.runId)} and ${verb} the ${plural(rowsLeft(v), 'row')} left (${n(v.resume.settledRows)} of ${n(plan.rows)} done) ${where}`;
  }
  const skipped = v.preflight?.skip ? v.preflight.done : 0;
  if (skipped > 0) {
    // The money of the plan counts every row; what moves is only the rows not left out.
    return `${verb[0]!.toUpperCase()}${verb.slice(1)} ${plural(plan.rows - skipped, 'row')} (${n(skipped)} of ${plural(plan.rows, 'row')} already done, left out by --skip-done) ${where}`;
  }
  const money = plan.reviews
    ? `approve ${n(plan.reviews.approve)}, reject ${n(plan.reviews.reject)}`
    : formatMoneyTotals(plan.moving);
  const orders = plan.orders ?? plan.rows;
  const what =
    orders === plan.rows
      ? plural(plan.rows, 'order')
      : `${plural(plan.rows, 'row')} of ${plural(orders, 'order')}`;
  return `${verb[0]!.toUpperCase()}${verb.slice(1)} ${what} (${money}) ${where}`;
}

/**
 * When what the run moves in a currency passes the profile's confirm_typed_above for it
 * (`USD:10000,EUR:8000`; `*:10000` for any currency not named), the operator types the number of
 * rows instead of answering y: what to type and why. A currency the setting gives no limit for asks
 * too: a threshold set for USD must not let EUR 767,000 through on a plain y (issue 27).
 */
export function typedConfirmation(
  v: PlanView,
  /** The profile's confirm_typed_above: `USD:10000,EUR:8000,*:5000` (checked when it was set). */
  above: string | undefined,
  /** What the run moves per currency: the rows left when resuming. Default: the plan's. */
  moving: ReadonlyMap<string, bigint> = v.plan.moving,
): { rows: number; why: string } | undefined {
  if (!above || v.dryRun) return undefined;
  const limits = new Map<string, string>();
  for (const part of above.split(',')) {
    const [currency = '', amount = ''] = part.split(':').map((s) => s.trim());
    limits.set(currency.toUpperCase(), amount);
  }
  const rows = v.resume ? rowsLeft(v) : v.plan.rows;
  for (const [currency, total] of [...moving].sort(([a], [b]) => a.localeCompare(b))) {
    if (total <= 0n) continue;
    const named = limits.get(currency);
    const amount = named ?? limits.get('*');
    if (amount === undefined) {
      return {
        rows,
        why: `the profile's confirm_typed_above sets no limit for ${currency} (add ${currency}:AMOUNT, or *:AMOUNT for any currency)`,
      };
    }
    const limit = parseAmount(amount, currency);
    const part = `${named === undefined ? '*' : currency}:${amount}`;
    // A limit that does not read as an amount of its currency (USD:10.999) asks, rather than not.
    if (!limit.ok) return { rows, why: `confirm_typed_above ${part} is not an amount of ${currency}` };
    if (total > limit.minor) {
      return {
        rows,
        why: `this is above the profile's confirm_typed_above (${formatMoney(limit.minor, currency)}${named === undefined ? ', from *' : ''})`,
      };
    }
  }
  return undefined;
}

const LABEL: Record<Outcome, string> = {
  succeeded: 'succeeded',
  already_done: 'already done',
  skipped: 'skipped',
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
  /** The terminal's width: lines are wrapped at spaces to fit it (a command is never broken). */
  columns?: number;
}

export function summaryLines(v: SummaryView): string[] {
  const { counts, money } = v.totals;
  const total = OUTCOMES.reduce((sum, o) => sum + counts[o], 0);
  const lines = [
    `${v.op} run ${quoteName(v.runId)}: ${plural(total, 'row')}${v.sandbox ? ` (${SANDBOX_NOTE})` : ''}`,
  ];
  const outcomes = renderOutcomes(
    OUTCOMES
      // "already done", "skipped" and "duplicated" only when there are such rows.
      .filter((o) => (o !== 'already_done' && o !== 'skipped' && o !== 'duplicated') || counts[o] > 0)
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
      !v.abandoned
        ? '  interrupted: the requests in flight finished and were journaled.'
        : counts.unknown > 0
          ? '  interrupted twice: the requests in flight were abandoned; their rows stay unknown until the run is resumed, which asks the gateway before sending anything.'
          : // Requests waiting to try again (a 429's Retry-After) were never sent: not_sent, none unknown.
            '  interrupted twice: stopped at once; no request was left without an answer, so resuming sends the rows not sent.',
    );
  if (v.stopped === 'unreachable') lines.push('  stopped: the gateway could not be reached.');
  if (v.stopped === 'auth')
    lines.push('  stopped: the gateway refused the credentials; rows not processed are marked not_sent.');
  if (v.stopped === 'route')
    lines.push(
      '  stopped: the gateway address or the proxy needs fixing (see below); rows not processed are marked not_sent.',
    );
  if (v.stopped === 'busy')
    lines.push(
      '  stopped: the gateway kept refusing requests as too many (HTTP 429 / E9001), so nothing more was sent; resume the run later, or with a lower --rate.',
    );
  if (v.stopped === 'journal')
    lines.push('  stopped: the journal could not be written; nothing more was sent.');
  // An interrupted run prints no row table (its rows are mostly not_sent): where to see them.
  if (v.stopped === 'interrupted' && v.resultsFile === undefined) {
    lines.push(`  every row: payops runs show ${shellQuote(v.runId)} (add --out FILE for a file)`);
  }
  if ((counts.unknown > 0 || counts.not_sent > 0 || v.stopped) && v.resumeCommand) {
    if (!v.resumable)
      lines.push('  this run used an in-process sandbox, which is gone: it cannot be resumed.');
    else {
      // "payops refund … --resume   (or: payops runs resume ID)": one command a line, to copy.
      const [command, other] = v.resumeCommand.split(/\s+\(or: (?=payops )/);
      lines.push(`  resume with: ${command}`);
      // Both run as printed, from a script too: the other one confirms the same way (issue 24).
      const alt = other?.replace(/\)$/, '');
      const yes = / --yes\b/.test(command ?? '') && alt && !/ --yes\b/.test(alt) ? ' --yes' : '';
      if (alt) lines.push(`           or: ${alt}${yes}`);
    }
  }
  return fitLines(lines, v.columns);
}

// Quoting an argument of the resume command for a shell: one definition, with the other quoting.
export { shellQuote } from '../../quote.js';
