// The plan document of four-eyes approval (issue 28, docs/approvals.md): what a maker signs with
// `payops plan`, checkers sign with `payops approve`, and a run given `--plan` holds itself to.
// Signatures are Ed25519 (node:crypto) over canonical JSON (keys sorted, no spaces), so the same
// meaning always gives the same bytes; amounts are decimal text, never floats.
import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

export const PLAN_FORMAT = 'payops-plan/1' as const;

/** A person's public key as the approvers file and a signature carry it. */
export interface KeyRef {
  name: string;
  /** `SHA256:` + base64url of SHA-256 over the raw 32-byte public key (keyFingerprint). */
  fingerprint: string;
  /** The raw 32-byte Ed25519 public key, base64url. */
  publicKey: string;
}

/** Everything the maker signs. Amounts are decimal text in the currency's digits. */
export interface PlanBody {
  format: typeof PLAN_FORMAT;
  /** Random, unique: the registry of used plans and the run header name it. */
  planId: string;
  op: 'refund' | 'capture' | 'cancel' | 'review' | 'payout';
  /** Who the money moves at, in normal form (lifecycle/identity.ts). */
  gateway: string;
  merchantId: string;
  accountId: string;
  /** The file as the maker named it, and the SHA-256 of its bytes (shown; the content key decides). */
  file: { name: string; sha256: string };
  /** What the file means (bulk/plan/content-key.ts; payouts: payout/meaning.ts). */
  content: string;
  /**
   * What binds the plan to its rows (rows-digest.ts): SHA-256 over the sorted SHA-256 of each row's
   * normalised fields. The content key above is not cryptographic; this is what the gate trusts.
   */
  rowsDigest: string;
  rows: number;
  /** Currency → what the run moves in it, decimal text. */
  totals: Record<string, string>;
  /** The largest rows (up to 5), largest first. */
  largest: Array<{
    line: number;
    currency: string;
    amount: string;
    orderNo?: string;
    transactionId?: string;
  }>;
  /** What the gateway already showed when the plan was made. */
  gatewayShows: { done: number; possiblyDone: number };
  /** Made with --skip-done: the rows the gateway showed done are left out of totals and largest. */
  skipDone?: true;
  /** How the file is read (the run header's readAs), the sheet, the columns as written. */
  readAs: string;
  sheet?: string;
  columns: string[];
  maker: KeyRef;
  createdAt: string;
  expiresAt: string;
}

export interface PlanSignature extends KeyRef {
  role: 'maker' | 'approve' | 'reject';
  at: string;
  reason?: string;
  /** Ed25519 signature, base64url: the maker's over canonical(plan), a checker's over checkerMessage(). */
  signature: string;
}

export interface PlanFile {
  plan: PlanBody;
  signatures: PlanSignature[];
}

/** The approval a run header keeps (lifecycle/records.ts NewRunHeader.approval) for resume and audit. */
export interface RunApproval {
  planId: string;
  /** planDigest of the plan the run was started with. */
  planDigest: string;
  maker: { name: string; fingerprint: string };
  approvers: Array<{ name: string; fingerprint: string; at: string }>;
}

/** JSON with object keys sorted at every level and no whitespace: one text per meaning. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** SHA-256 (hex) of the plan body's canonical JSON: what every signature is bound to. */
export function planDigest(plan: PlanBody): string {
  return createHash('sha256').update(canonicalJson(plan)).digest('hex');
}

/** What a checker signs: the plan, the maker's signature, and the checker's own decision. */
export function checkerMessage(
  plan: PlanBody,
  makerSignature: string,
  s: Omit<PlanSignature, 'signature'>,
): string {
  return canonicalJson({
    planDigest: planDigest(plan),
    makerSignature,
    role: s.role,
    at: s.at,
    fingerprint: s.fingerprint,
    ...(s.reason === undefined ? {} : { reason: s.reason }),
  });
}

/** `SHA256:<base64url>` of the raw public key bytes. */
export function keyFingerprint(rawPublicKey: Buffer): string {
  return `SHA256:${createHash('sha256').update(rawPublicKey).digest('base64url')}`;
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** A raw 32-byte Ed25519 public key (base64url) as a KeyObject; undefined when it is not one. */
export function publicKeyObject(rawBase64url: string): KeyObject | undefined {
  const raw = Buffer.from(rawBase64url, 'base64url');
  if (raw.length !== 32 || raw.toString('base64url') !== rawBase64url) return undefined;
  try {
    return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** The raw 32 bytes of an Ed25519 public KeyObject. */
export function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(ED25519_SPKI_PREFIX.length);
}

export function signText(privateKey: KeyObject, text: string): string {
  return sign(null, Buffer.from(text, 'utf8'), privateKey).toString('base64url');
}

/** Whether `signature` is `ref`'s over `text`; false for a malformed key or signature, never throws. */
export function verifyText(ref: KeyRef, text: string, signature: string): boolean {
  const key = publicKeyObject(ref.publicKey);
  if (!key || keyFingerprint(rawPublicKey(key)) !== ref.fingerprint) return false;
  try {
    return verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}
