// Reading a plan file and checking every signature in it, offline (docs/approvals.md). `payops
// approve` and a run given `--plan` both go through verifyPlan, so what an approver checked is what
// the run checks. Fails closed: any signature that does not verify, any signer not in the approvers
// file, the maker approving, an approver twice, an expired plan — refused, named exactly.
import { readFile, stat } from 'node:fs/promises';
import { InputError, UsageError } from '../errors.js';
import { quote } from '../quote.js';
import { approversPath, formatKeyLine, loadApprovers } from './approvers.js';
import {
  canonicalJson,
  checkerMessage,
  type KeyRef,
  PLAN_FORMAT,
  type PlanBody,
  type PlanFile,
  type PlanSignature,
  planDigest,
  verifyText,
} from './plan-doc.js';
import { ROWS_DIGEST } from './rows-digest.js';

export { approversPath, loadApprovers };

/** A plan file is small: a plan of 100,000 rows is still a few KB (totals and 5 rows). */
const MAX_PLAN_BYTES = 1024 * 1024;

export interface SignedBy extends KeyRef {
  at: string;
}

export interface VerifiedPlan {
  plan: PlanBody;
  /** planDigest(plan): what every signature is bound to; the run header keeps it. */
  digest: string;
  /** The maker as the approvers file names them, and when they signed. */
  maker: SignedBy;
  /** Distinct approvers, each in the approvers file and not the maker, in the order they signed. */
  approvals: SignedBy[];
  /** Refusals recorded with `approve --reject`: a plan with any must not run. */
  rejections: Array<SignedBy & { reason: string }>;
}

/** The plan file at `path`, its shape checked; malformed JSON or shape refused naming the file. */
export async function readPlanFile(path: string): Promise<PlanFile> {
  let text: string;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw bad(path, 'not a regular file');
    if (st.size > MAX_PLAN_BYTES) throw bad(path, `larger than ${MAX_PLAN_BYTES} bytes: not a plan file`);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw bad(path, code === 'ENOENT' ? 'no such file' : (err as Error).message);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw bad(path, `not JSON (${(err as Error).message})`);
  }
  const problem = planFileProblem(value);
  if (problem) throw bad(path, `not a payops plan: ${problem}`);
  return value as PlanFile;
}

function bad(path: string, message: string): InputError {
  return new InputError(`plan file ${quote(path)}: ${message}`, [], {
    hint: 'a plan file is written by `payops plan` and signed by `payops approve`; it is not edited by hand',
  });
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const OPS = ['refund', 'capture', 'cancel', 'review', 'payout'];

function keyRefProblem(v: unknown, what: string): string | undefined {
  if (!isObj(v)) return `${what} is not an object`;
  for (const f of ['name', 'fingerprint', 'publicKey']) if (!isStr(v[f])) return `${what}.${f} is not text`;
  return undefined;
}

/** What is wrong with a parsed plan file's shape, or undefined. Extra fields are allowed: they are signed. */
export function planFileProblem(v: unknown): string | undefined {
  if (!isObj(v)) return 'the document is not an object';
  const p = v.plan;
  if (!isObj(p)) return '"plan" is missing';
  if (p.format !== PLAN_FORMAT) return `plan.format is not ${PLAN_FORMAT}`;
  for (const f of [
    'planId',
    'gateway',
    'merchantId',
    'accountId',
    'content',
    'readAs',
    'createdAt',
    'expiresAt',
  ]) {
    if (!isStr(p[f])) return `plan.${f} is not text`;
  }
  if (!OPS.includes(p.op as string)) return 'plan.op is not an operation';
  if (!isStr(p.rowsDigest) || !ROWS_DIGEST.test(p.rowsDigest)) return 'plan.rowsDigest is not a SHA-256';
  if (!isObj(p.file) || !isStr(p.file.name) || !isStr(p.file.sha256))
    return 'plan.file is not {name, sha256}';
  if (!isCount(p.rows)) return 'plan.rows is not a count';
  if (!isObj(p.totals) || !Object.values(p.totals).every((a) => isStr(a) && DECIMAL.test(a))) {
    return 'plan.totals is not currency → decimal amount';
  }
  if (
    !Array.isArray(p.largest) ||
    !p.largest.every((r) => isObj(r) && isCount(r.line) && isStr(r.currency) && isStr(r.amount))
  ) {
    return 'plan.largest is not a list of rows';
  }
  if (!isObj(p.gatewayShows) || !isCount(p.gatewayShows.done) || !isCount(p.gatewayShows.possiblyDone)) {
    return 'plan.gatewayShows is not {done, possiblyDone}';
  }
  if (p.sheet !== undefined && !isStr(p.sheet)) return 'plan.sheet is not text';
  if (!Array.isArray(p.columns) || !p.columns.every(isStr)) return 'plan.columns is not a list of names';
  const makerProblem = keyRefProblem(p.maker, 'plan.maker');
  if (makerProblem) return makerProblem;
  if (Number.isNaN(Date.parse(p.createdAt as string)) || Number.isNaN(Date.parse(p.expiresAt as string))) {
    return 'plan.createdAt or plan.expiresAt is not a time';
  }
  if (!Array.isArray(v.signatures) || v.signatures.length === 0) return '"signatures" is missing or empty';
  for (const [i, s] of v.signatures.entries()) {
    const what = `signatures[${i}]`;
    const problem = keyRefProblem(s, what);
    if (problem) return problem;
    const sig = s as Obj;
    if (!['maker', 'approve', 'reject'].includes(sig.role as string))
      return `${what}.role is not maker, approve or reject`;
    if (!isStr(sig.at) || Number.isNaN(Date.parse(sig.at))) return `${what}.at is not a time`;
    if (!isStr(sig.signature)) return `${what}.signature is not text`;
    if (sig.reason !== undefined && !isStr(sig.reason)) return `${what}.reason is not text`;
  }
  return undefined;
}

/** `"Ana Silva" SHA256:…`: a signer as messages name them. */
export function who(ref: Pick<KeyRef, 'name' | 'fingerprint'>): string {
  return `${quote(ref.name)} ${ref.fingerprint}`;
}

function listed(approvers: readonly KeyRef[], ref: KeyRef): KeyRef | undefined {
  return approvers.find((a) => a.fingerprint === ref.fingerprint && a.publicKey === ref.publicKey);
}

/**
 * Every signature of `file` checked against `approvers` at `now`; throws a UsageError (exit 2)
 * naming the first thing wrong. `source` names the plan file in messages.
 */
export function verifyPlan(
  file: PlanFile,
  approvers: readonly KeyRef[],
  now: Date,
  source = 'the plan',
): VerifiedPlan {
  const { plan, signatures } = file;
  const refuse = (message: string, hint?: string): never => {
    throw new UsageError(`${source}: ${message}`, hint ? { hint } : {});
  };
  const digest = planDigest(plan);
  const [first, ...rest] = signatures as [PlanSignature, ...PlanSignature[]];
  if (first.role !== 'maker') refuse("the first signature is not the maker's");
  if (first.fingerprint !== plan.maker.fingerprint || first.publicKey !== plan.maker.publicKey) {
    refuse(`the first signature is by ${who(first)}, but the plan names the maker ${who(plan.maker)}`);
  }
  if (!verifyText(plan.maker, canonicalJson(plan), first.signature)) {
    refuse(
      `the maker's signature (${who(plan.maker)}) does not verify: the plan was changed after it was signed`,
      'make the plan again with `payops plan`; never edit a plan file',
    );
  }
  const maker = listed(approvers, plan.maker);
  if (!maker) {
    refuse(
      `the maker ${who(plan.maker)} is not in the approvers file`,
      `the maker's \`payops keys show\` line must be in the approvers file: ${formatKeyLine(plan.maker)}`,
    );
  }
  const approvals: SignedBy[] = [];
  const rejections: Array<SignedBy & { reason: string }> = [];
  const signed = new Set<string>();
  rest.forEach((s, i) => {
    const n = `signature ${i + 2} (${s.role}, ${who(s)})`;
    if (s.role === 'maker') refuse(`${n}: a plan has one maker signature`);
    const { signature, ...unsigned } = s;
    if (!verifyText(s, checkerMessage(plan, first.signature, unsigned), signature)) {
      refuse(`${n} does not verify: the plan or that signature was changed after it was signed`);
    }
    if (s.fingerprint === plan.maker.fingerprint)
      refuse(`${n}: the maker cannot approve or reject their own plan`);
    const ref = listed(approvers, s);
    if (!ref) refuse(`${n}: the key is not in the approvers file`);
    if (signed.has(s.fingerprint)) refuse(`${n}: ${who(s)} signed this plan already`);
    signed.add(s.fingerprint);
    const by = { ...(ref as KeyRef), at: s.at };
    if (s.role === 'reject') rejections.push({ ...by, reason: s.reason ?? '' });
    else approvals.push(by);
  });
  const expires = Date.parse(plan.expiresAt);
  if (!(now.getTime() < expires)) {
    refuse(
      `the plan expired at ${plan.expiresAt}`,
      'make a new plan with `payops plan` and have it approved again',
    );
  }
  return { plan, digest, maker: { ...(maker as KeyRef), at: first.at }, approvals, rejections };
}
