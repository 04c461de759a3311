// What a plan says, as a person reads it: the maker after `payops plan`, a checker before deciding
// (`payops approve`). Every text that came from the file or the plan is shown terminal-safe.
import { formatCount, plural } from '../output/summary.js';
import { displayWidth, wrapAtSpaces } from '../output/width.js';
import { terminalSafe } from '../quote.js';
import type { PlanBody } from './plan-doc.js';
import type { VerifiedPlan } from './verify.js';

/** One line's worth of text from the file or the plan: nothing a terminal acts on, no line break. */
const safe = (s: string) => terminalSafe(s).replace(/\n/g, '\\n').replace(/\t/g, '\\t');

/** `1234567.50` → `1,234,567.50`: a plan's decimal text grouped for reading (never a float). */
export function groupAmount(text: string): string {
  const [int, frac] = text.split('.') as [string, string | undefined];
  const sign = int.startsWith('-') ? '-' : '';
  const digits = sign ? int.slice(1) : int;
  return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac === undefined ? '' : `.${frac}`}`;
}

export function totalsText(totals: Record<string, string>): string {
  const entries = Object.entries(totals).sort(([a], [b]) => (a < b ? -1 : 1));
  return entries.length === 0 ? 'nothing' : entries.map(([c, a]) => `${c} ${groupAmount(a)}`).join(' · ');
}

/** The read-as JSON a plan keeps, in words: encoding and decimal mark. */
function readAsWords(plan: PlanBody): string {
  let r: { encoding?: unknown; mark?: unknown; refundReason?: unknown } = {};
  try {
    r = JSON.parse(plan.readAs) as typeof r;
  } catch {
    // An unreadable read-as is shown as it is (it is signed: it was written so).
    return safe(plan.readAs);
  }
  const parts = [
    typeof r.encoding === 'string' ? r.encoding : 'utf-8',
    `decimal ${r.mark === ',' ? 'comma' : 'point'}`,
    ...(plan.sheet ? [`sheet ${plan.sheet}`] : []),
    ...(typeof r.refundReason === 'string' ? [`--refund-reason ${JSON.stringify(r.refundReason)}`] : []),
  ];
  return safe(parts.join(', '));
}

function remaining(ms: number): string {
  if (ms <= 0) return 'expired';
  const h = ms / 3_600_000;
  if (h >= 47) return `in ${Math.round(h / 24)} days`;
  if (h >= 1) return `in ${plural(Math.round(h), 'hour')}`;
  return `in ${plural(Math.max(1, Math.floor(ms / 60_000)), 'minute')}`;
}

/** The plan's facts, one per line, as `payops plan` prints them after writing it. */
export function planSummaryLines(plan: PlanBody, fileName: string, now = new Date()): string[] {
  const label = safe(plan.file.name);
  const lines = [
    `plan ${safe(fileName)} (${plan.planId})`,
    `  ${plan.op} of ${label}: ${plural(plan.rows, 'row')}, content key ${plan.content}`,
    `  at         ${safe(plan.gateway.split('|')[0] ?? plan.gateway)} (merchant ${safe(plan.merchantId)}, account ${safe(plan.accountId)})`,
    `  moves      ${totalsText(plan.totals)}`,
  ];
  // Amounts right-aligned in one column, so that their sizes compare at a glance.
  const money = plan.largest.map((r) => `${r.currency} ${groupAmount(r.amount)}`);
  const width = Math.max(0, ...money.map((m) => m.length));
  plan.largest.forEach((r, i) => {
    const ids = [
      r.orderNo ? `order ${r.orderNo}` : '',
      r.transactionId ? `transaction ${r.transactionId}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(
      `  ${i === 0 ? 'largest   ' : '          '} ${money[i]!.padStart(width)}  ${label}:${r.line}${ids ? `  ${safe(ids)}` : ''}`,
    );
  });
  const { done, possiblyDone } = plan.gatewayShows;
  lines.push(
    `  gateway    showed ${formatCount(done)} already done, ${formatCount(possiblyDone)} possibly done${plan.skipDone ? ' (left out: --skip-done)' : ''}`,
    `  read as    ${readAsWords(plan)}; columns ${safe(plan.columns.join(', '))}`,
    `  made by    ${safe(plan.maker.name)} (${plan.maker.fingerprint}) at ${plan.createdAt}`,
    `  expires    ${plan.expiresAt} (${remaining(Date.parse(plan.expiresAt) - now.getTime())})`,
  );
  return lines;
}

/** The plan and every decision on it so far: what `payops approve` shows before asking. */
export function approveScreenLines(v: VerifiedPlan, fileName: string, now = new Date()): string[] {
  const lines = planSummaryLines(v.plan, fileName, now);
  const by = (s: { name: string; fingerprint: string; at: string }) =>
    `${safe(s.name)} (${s.fingerprint}) at ${s.at}`;
  if (v.approvals.length === 0) lines.push('  approved   by no one yet');
  v.approvals.forEach((a, i) => {
    lines.push(`  ${i === 0 ? 'approved  ' : '          '} by ${by(a)}`);
  });
  for (const r of v.rejections) lines.push(`  REJECTED   by ${by(r)}: ${safe(r.reason)}`);
  return lines;
}

/**
 * The plan's lines fitted to a terminal `columns` wide (undefined: as they are): broken at spaces
 * (output/width.ts wrapAtSpaces, so no id or amount is cut), the last column left empty as
 * fitMessage leaves it, each continuation under its line's value — after `  largest    `, under the
 * value column; otherwise two in. Lines already fitted pass the logger's fitMessage unchanged.
 */
export function fitPlanLines(lines: readonly string[], columns: number | undefined): string[] {
  if (!columns || columns < 20) return [...lines];
  const width = columns - 1;
  return lines.flatMap((line) => {
    if (displayWidth(line) <= width) return [line];
    const value = /^( {2}[a-z]+(?: [a-z]+)? {2,}| {4,})/.exec(line)?.[0];
    const indent = value && value.length < width / 2 ? ' '.repeat(value.length) : `${/^ */.exec(line)![0]}  `;
    // `order X` and `transaction Y` stay together: the space in them is held (a no-break space) while wrapping.
    const held = line.replace(/\b(order|transaction) (?=\S)/g, '$1\u00a0');
    return wrapAtSpaces(held, width, indent).map((l) => l.trimEnd().replace(/\u00a0/g, ' '));
  });
}
