// `payops plan OP FILE --out X.plan` (docs/approvals.md): what a run of FILE would do, checked as
// the run checks it — pass 1 (bulk/plan/plan.ts) and the gateway check (bulk/check/gateway-check.ts)
// — written as a plan document signed with the maker's key. Nothing that moves money is sent: the
// gateway check only looks orders up. A file the run would refuse is refused with the run's errors.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { checkAtGateway } from '../bulk/check/gateway-check.js';
import type { BulkFlags } from '../bulk/flags.js';
import { inputRows } from '../bulk/input.js';
import { OPERATIONS } from '../bulk/operations.js';
import { planBulk } from '../bulk/plan/plan.js';
import { rowCacheFor } from '../bulk/plan/row-cache.js';
import { stderrWidth } from '../bulk/report/ui.js';
import { inputSource } from '../bulk/run-bulk.js';
import { writeJsonAtomic } from '../config/json-file.js';
import { assertMayMoveMoney } from '../config/resolve.js';
import type { Context } from '../context.js';
import { ConfigError, UsageError } from '../errors.js';
import type { BatchOperation } from '../gateway/endpoints.js';
import { gatewayIdentity } from '../lifecycle/identity.js';
import { addToTotals, formatAmount } from '../money/amount.js';
import { checkOutFile } from '../output/safe-file.js';
import type { PayoutFlags } from '../payout/run-payout.js';
import { quote } from '../quote.js';
import { hiddenRefusal } from '../tabular/hidden.js';
import { readAsText } from '../tabular/read-as.js';
import { loadSigningKey } from './keys.js';
import { canonicalJson, PLAN_FORMAT, type PlanBody, type PlanFile, signText } from './plan-doc.js';
import { fitPlanLines, planSummaryLines } from './plan-view.js';
import { payoutRowsDigest, RowsDigest } from './rows-digest.js';

export const DEFAULT_EXPIRY = '7d';
const MAX_EXPIRY_MS = 90 * 86_400_000;
const LARGEST = 5;
export const PLAN_FILE_MODE = 0o644;

/** `7d`, `36h`, `90m`, `30s` → milliseconds; undefined when unreadable, zero or over 90 days. */
export function parseExpiry(text: string): number | undefined {
  const m = /^(\d+)\s*(s|m|h|d)$/i.exec(text.trim());
  if (!m) return undefined;
  const scale = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
    m[2]!.toLowerCase() as 's' | 'm' | 'h' | 'd'
  ];
  const ms = Number(m[1]) * scale;
  return ms >= 1000 && ms <= MAX_EXPIRY_MS ? ms : undefined;
}

export interface PlanFlags extends BulkFlags {
  expires?: string;
}

export interface PayoutPlanFlags
  extends Pick<
    PayoutFlags,
    'file' | 'sheet' | 'columns' | 'headerRow' | 'decimalComma' | 'encoding' | 'includeHidden' | 'skipHidden'
  > {
  expires?: string;
}

type Largest = PlanBody['largest'][number];

/**
 * The largest rows, up to LARGEST: the largest of each currency first (amounts of two currencies
 * are not compared), then the next of each, currencies by code.
 */
export function pickLargest(byCurrency: Map<string, Largest[]>): Largest[] {
  const lists = [...byCurrency.keys()].sort().map((c) => byCurrency.get(c)!);
  const out: Largest[] = [];
  for (let round = 0; out.length < LARGEST; round++) {
    const next = lists.map((l) => l[round]).filter((r): r is Largest => r !== undefined);
    if (next.length === 0) break;
    out.push(...next.slice(0, LARGEST - out.length));
  }
  return out;
}

/** Keeps the LARGEST biggest rows of one currency, largest first (ties: the earlier line). */
function keepLargest(list: Largest[], row: Largest, minor: bigint, minors: WeakMap<Largest, bigint>): void {
  minors.set(row, minor);
  let at = list.length;
  while (at > 0 && minors.get(list[at - 1]!)! < minor) at--;
  if (at >= LARGEST) return;
  list.splice(at, 0, row);
  if (list.length > LARGEST) list.pop();
}

/** What a plan says of its file, by operation: bulk (bulkFacts) or payouts (payoutFacts). */
type FileFacts = Pick<
  PlanBody,
  'file' | 'content' | 'rowsDigest' | 'rows' | 'totals' | 'largest' | 'gatewayShows' | 'readAs' | 'columns'
> &
  Partial<Pick<PlanBody, 'sheet' | 'skipDone'>>;

function totalsText(totals: Map<string, bigint>): Record<string, string> {
  return Object.fromEntries(
    [...totals.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([c, m]) => [c, formatAmount(m, c)]),
  );
}

/** Everything before the file is read: the flags, --out, the maker's key, a gateway that outlives the plan. */
async function prelude(ctx: Context, what: string, file: string | undefined, expires: string | undefined) {
  const out = ctx.globals.out;
  if (out === undefined) {
    throw new UsageError('--out is required: where to write the plan', {
      hint: `payops plan ${what} FILE --out ${what}.plan`,
    });
  }
  if (file === undefined)
    throw new UsageError(`name the file to plan: payops plan ${what} FILE --out ${out}`);
  const expiresIn = parseExpiry(expires ?? DEFAULT_EXPIRY);
  if (expiresIn === undefined) {
    throw new UsageError(`--expires ${quote(expires ?? '')} is not a duration from 1s to 90d`, {
      hint: 'such as 7d, 36h or 90m',
    });
  }
  await checkOutFile(ctx.io.cwd, out, [{ flag: 'FILE', path: file }], ctx.io.env);
  const target = resolve(ctx.io.cwd, out);
  if (existsSync(target)) {
    throw new UsageError(`--out ${out} exists already; a plan is never written over another`, {
      hint: 'name another file, or remove the old plan first',
    });
  }
  // The maker's key first: without it there is no plan to make, and nothing is asked of the gateway.
  const key = await loadSigningKey(ctx);
  const config = await ctx.config();
  assertMayMoveMoney(config, `a plan for payops ${what}`);
  if (config.sandbox) {
    throw new ConfigError(
      'a plan cannot be made against the in-process sandbox: its gateway is gone when this command ends',
      {
        hint: 'start `payops sandbox` in another terminal and point base_url at it (docs/approvals.md), or use a real gateway',
      },
    );
  }
  return { out, target, expiresIn, key, config };
}

/** The plan signed by the maker, written to --out; the summary and the next step said. */
function writePlan(
  ctx: Context,
  op: PlanBody['op'],
  p: Awaited<ReturnType<typeof prelude>>,
  facts: FileFacts,
): number {
  const now = new Date();
  const body: PlanBody = {
    format: PLAN_FORMAT,
    planId: `pl_${randomBytes(12).toString('base64url')}`,
    op,
    gateway: gatewayIdentity(p.config),
    merchantId: p.config.merchantId,
    accountId: p.config.accountId,
    ...facts,
    maker: p.key.ref,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + p.expiresIn).toISOString(),
  };
  const file: PlanFile = {
    plan: body,
    signatures: [
      {
        ...p.key.ref,
        role: 'maker',
        at: body.createdAt,
        signature: signText(p.key.privateKey, canonicalJson(body)),
      },
    ],
  };
  // Not secret (it names orders and amounts, as the file does): readable as the input file would be.
  writeJsonAtomic(p.target, file, PLAN_FILE_MODE);
  for (const line of fitPlanLines(planSummaryLines(body, p.out), stderrWidth(ctx).columns))
    ctx.log.info(line);
  ctx.log.info(`wrote ${p.out}, signed by you (${p.key.ref.name}, ${p.key.ref.fingerprint})`);
  ctx.log.info(`next: someone else in the approvers file runs \`payops approve ${p.out}\``);
  return 0;
}

/** `payops plan capture|cancel|review|refund FILE`: pass 1 and the gateway check, as the run makes them. */
export async function runMakePlan(ctx: Context, op: BatchOperation, flags: PlanFlags): Promise<number> {
  const p = await prelude(ctx, op, flags.file, flags.expires);
  const { config } = p;
  const source = await inputSource(ctx, op, config, flags, undefined);
  const cache = await rowCacheFor(source.path, false, config.signKey !== undefined);
  const plan = await planBulk(op, source, {}, cache);
  const hiddenRefused = hiddenRefusal(plan.source.label, plan);
  if (hiddenRefused) throw hiddenRefused;
  const checked = await checkAtGateway(ctx, plan, cache, flags, false, config);
  const done = new Set((checked?.record.done ?? []).map(([line]) => line));
  const possible = new Set(checked?.record.possible ?? []);

  // What moves: with --skip-done the rows the gateway shows done are left out, as the run leaves them.
  const spec = OPERATIONS[op];
  const totals = new Map<string, bigint>();
  const byCurrency = new Map<string, Largest[]>();
  const minors = new WeakMap<Largest, bigint>();
  // Every row, done or not: the digest binds the plan to the whole file, as the content key does.
  const digest = new RowsDigest();
  for await (const row of inputRows(op, plan.source)) {
    digest.addBulk(row);
    if (flags.skipDone && done.has(row.line)) continue;
    const minor = row[spec.moves] ?? row.amountMinor;
    addToTotals(totals, row.currency, minor);
    const entry: Largest = {
      line: row.line,
      currency: row.currency,
      amount: formatAmount(minor, row.currency),
      orderNo: row.order_no,
      transactionId: row.transaction_id,
    };
    if (!byCurrency.has(row.currency)) byCurrency.set(row.currency, []);
    keepLargest(byCurrency.get(row.currency)!, entry, minor, minors);
  }
  return writePlan(ctx, op, p, {
    file: { name: basename(flags.file!), sha256: plan.sha256 },
    content: plan.content,
    rowsDigest: digest.digest(),
    rows: plan.rows,
    totals: totalsText(totals),
    largest: pickLargest(byCurrency),
    gatewayShows: { done: done.size - possible.size, possiblyDone: possible.size },
    ...(flags.skipDone ? { skipDone: true as const } : {}),
    readAs: plan.readAs ? readAsText(plan.readAs) : '',
    ...(plan.sheet ? { sheet: plan.sheet.name } : {}),
    columns: plan.columns,
  });
}

/**
 * `payops plan payout FILE`: the payout run's validation (payout/run-payout.ts loadCsv: every row,
 * the same payout twice, hidden rows). What a payout run checks besides is its own home's journals
 * (request_ids, payouts possibly done), which only the home that runs it has: checked at the run.
 */
export async function runMakePayoutPlan(ctx: Context, flags: PayoutPlanFlags): Promise<number> {
  const p = await prelude(ctx, 'payout', flags.file, flags.expires);
  const { loadCsv } = await import('../payout/run-payout.js');
  const { expires: _expires, ...read } = flags;
  const plan = await loadCsv(ctx, read);
  const byCurrency = new Map<string, Largest[]>();
  const minors = new WeakMap<Largest, bigint>();
  for (const item of plan.items) {
    const entry: Largest = {
      line: item.line,
      currency: item.currency,
      amount: formatAmount(item.minor, item.currency),
    };
    if (!byCurrency.has(item.currency)) byCurrency.set(item.currency, []);
    keepLargest(byCurrency.get(item.currency)!, entry, item.minor, minors);
  }
  return writePlan(ctx, 'payout', p, {
    file: { name: basename(flags.file!), sha256: plan.sha256 },
    content: plan.contentKey,
    rowsDigest: payoutRowsDigest(plan.items),
    rows: plan.items.length,
    totals: totalsText(plan.totals),
    largest: pickLargest(byCurrency),
    gatewayShows: { done: 0, possiblyDone: 0 },
    readAs: plan.readAs ? readAsText(plan.readAs) : '',
    ...(plan.sheet ? { sheet: plan.sheet.name } : {}),
    // The header's columns read under another name (payouts name fields by their path).
    columns: plan.header?.matches.map((m) => `${m.column}=${m.header}`) ?? [],
  });
}
