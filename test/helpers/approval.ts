// Four-eyes tests: people's keys (node:crypto Ed25519), the team's approvers file, a maker's and a
// checker's PAYOPS_HOME, and plan files signed the way `payops plan` and `payops approve` sign them
// (approval/plan-doc.ts). The plan's content key comes from pass 1 itself (bulk/plan/plan.ts), so a
// plan here says what `payops plan` would; the run under test is always the real binary.
import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatKeyLine } from '../../src/approval/approvers.js';
import {
  canonicalJson,
  checkerMessage,
  type KeyRef,
  keyFingerprint,
  PLAN_FORMAT,
  type PlanBody,
  type PlanFile,
  type PlanSignature,
  rawPublicKey,
  signText,
} from '../../src/approval/plan-doc.js';
import { bulkRowsDigest, payoutRowsDigest } from '../../src/approval/rows-digest.js';
import { inputRows } from '../../src/bulk/input.js';
import { planBulk } from '../../src/bulk/plan/plan.js';
import { formatAmount } from '../../src/money/amount.js';
import { loadPayoutCsv } from '../../src/payout/plan.js';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/accounts.js';

export interface Person {
  ref: KeyRef;
  privateKey: KeyObject;
}

export function person(name: string): Person {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKey(publicKey);
  return {
    ref: { name, fingerprint: keyFingerprint(raw), publicKey: raw.toString('base64url') },
    privateKey,
  };
}

/** The team's approvers file: one `payops keys show` line per person. */
export function writeApprovers(path: string, people: Person[]): string {
  writeFileSync(path, `# the team\n${people.map((p) => formatKeyLine(p.ref)).join('\n')}\n`);
  return path;
}

/** A PAYOPS_HOME whose default profile holds `profile` (the gateway comes from the environment). */
export function home(path: string, profile: Record<string, unknown> = {}): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(path, 'config.json'),
    JSON.stringify({ current: 'default', profiles: { default: profile } }),
    { mode: 0o600 },
  );
  return path;
}

/** The sandbox at `url` as a plan names it: `URL|merchant|account` (lifecycle/identity.ts). */
export function sandboxGateway(url: string, merchant: string = SANDBOX_CREDENTIALS.merchantId): string {
  return `${url}|${merchant}|${SANDBOX_CREDENTIALS.accountId}`;
}

/** A refund file's plan body as `payops plan refund FILE` makes it: pass 1's content key and totals. */
export async function refundPlan(
  maker: Person,
  file: string,
  gateway: string,
  over: Partial<PlanBody> = {},
): Promise<PlanBody> {
  const plan = await planBulk('refund', { path: file, label: file }, { maxAmounts: [] }, undefined);
  const rowsDigest = await bulkRowsDigest(inputRows('refund', plan.source));
  return planBody(maker, gateway, file, plan.sha256, plan.content, plan.rows, plan.moving, plan.columns, {
    op: 'refund',
    rowsDigest,
    ...over,
  });
}

/** A payout file's plan body: its content key (payout/meaning.ts) and totals. */
export async function payoutPlan(
  maker: Person,
  file: string,
  gateway: string,
  over: Partial<PlanBody> = {},
): Promise<PlanBody> {
  const plan = await loadPayoutCsv(file, process.cwd());
  const moving = new Map<string, bigint>();
  for (const i of plan.items) moving.set(i.currency, (moving.get(i.currency) ?? 0n) + i.minor);
  return planBody(maker, gateway, file, plan.sha256, plan.contentKey, plan.items.length, moving, [], {
    op: 'payout',
    rowsDigest: payoutRowsDigest(plan.items),
    ...over,
  });
}

function planBody(
  maker: Person,
  gateway: string,
  file: string,
  sha256: string,
  content: string,
  rows: number,
  moving: ReadonlyMap<string, bigint>,
  columns: string[],
  over: Partial<PlanBody>,
): PlanBody {
  const totals: Record<string, string> = {};
  for (const [currency, minor] of moving) totals[currency] = formatAmount(minor, currency);
  const now = Date.now();
  const [, merchantId = '', accountId = ''] = gateway.split('|');
  return {
    format: PLAN_FORMAT,
    planId: `pl_${randomBytes(8).toString('hex')}`,
    op: 'refund',
    gateway,
    merchantId,
    accountId,
    file: { name: file, sha256 },
    content,
    rowsDigest: '',
    rows,
    totals,
    largest: [],
    gatewayShows: { done: 0, possiblyDone: 0 },
    readAs: 'utf-8',
    columns,
    maker: maker.ref,
    createdAt: new Date(now - 60_000).toISOString(),
    expiresAt: new Date(now + 7 * 86_400_000).toISOString(),
    ...over,
  };
}

/** The maker's signature over the plan. */
export function signed(maker: Person, plan: PlanBody): PlanFile {
  return {
    plan,
    signatures: [
      {
        ...maker.ref,
        role: 'maker',
        at: plan.createdAt,
        signature: signText(maker.privateKey, canonicalJson(plan)),
      },
    ],
  };
}

/** A checker's approval (or rejection) added. */
export function approved(
  file: PlanFile,
  by: Person,
  role: 'approve' | 'reject' = 'approve',
  reason?: string,
  at = new Date().toISOString(),
): PlanFile {
  const unsigned: Omit<PlanSignature, 'signature'> = {
    ...by.ref,
    role,
    at,
    ...(reason === undefined ? {} : { reason }),
  };
  const signature = signText(
    by.privateKey,
    checkerMessage(file.plan, file.signatures[0]!.signature, unsigned),
  );
  return { ...file, signatures: [...file.signatures, { ...unsigned, signature }] };
}

export function writePlan(path: string, file: PlanFile): string {
  writeFileSync(path, `${JSON.stringify(file, undefined, 2)}\n`);
  return path;
}
