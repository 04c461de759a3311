// verifyPlan: what `payops approve` and a run given --plan accept, and each refusal named.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanFile } from '../../../src/approval/plan-doc.js';
import { readPlanFile, verifyPlan } from '../../../src/approval/verify.js';
import { InputError, UsageError } from '../../../src/errors.js';
import { countersign, signedPlan, testKey } from './fixtures.js';

const ana = testKey('Ana Silva');
const bo = testKey('Bo Chen');
const cy = testKey('Cy Diaz');
const stranger = testKey('Mallory');
const approvers = [ana.ref, bo.ref, cy.ref];
const NOW = new Date('2026-12-03T00:00:00.000Z');

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe('verifyPlan', () => {
  it('accepts a maker-signed plan and two approvals, naming them and the digest', () => {
    const file = countersign(countersign(signedPlan(ana), bo), cy);
    const v = verifyPlan(file, approvers, NOW);
    expect(v.maker.fingerprint).toBe(ana.ref.fingerprint);
    expect(v.approvals.map((a) => a.name)).toEqual(['Bo Chen', 'Cy Diaz']);
    expect(v.rejections).toEqual([]);
    expect(v.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reports a rejection with its reason', () => {
    const v = verifyPlan(countersign(signedPlan(ana), bo, 'reject', 'row 7 is a duplicate'), approvers, NOW);
    expect(v.approvals).toEqual([]);
    expect(v.rejections).toEqual([
      expect.objectContaining({ name: 'Bo Chen', reason: 'row 7 is a duplicate' }),
    ]);
  });

  it('refuses a plan with one value changed: the maker signature', () => {
    const file = countersign(signedPlan(ana), bo);
    const changed: PlanFile = {
      ...file,
      plan: { ...file.plan, totals: { ...file.plan.totals, USD: '1500.01' } },
    };
    expect(refusal(() => verifyPlan(changed, approvers, NOW))).toMatch(/maker's signature .*does not verify/);
  });

  it('refuses an approval signature with its time changed: that signature named', () => {
    const file = countersign(signedPlan(ana), bo);
    const sigs = file.signatures.map((s, i) => (i === 1 ? { ...s, at: '2026-12-02T10:00:01.000Z' } : s));
    expect(refusal(() => verifyPlan({ ...file, signatures: sigs }, approvers, NOW))).toMatch(
      /signature 2 \(approve, "Bo Chen".*does not verify/,
    );
  });

  it('refuses an approval turned into a rejection (role is signed)', () => {
    const file = countersign(signedPlan(ana), bo, 'reject', 'no');
    const sigs = file.signatures.map((s, i) =>
      i === 1 ? { ...s, role: 'approve' as const, reason: undefined } : s,
    );
    expect(refusal(() => verifyPlan({ ...file, signatures: sigs }, approvers, NOW))).toMatch(
      /does not verify/,
    );
  });

  it('refuses an approval moved to another plan', () => {
    const other = signedPlan(ana, { planId: 'pl_other' });
    const approved = countersign(signedPlan(ana), bo);
    const moved = { ...other, signatures: [...other.signatures, approved.signatures[1]!] };
    expect(refusal(() => verifyPlan(moved, approvers, NOW))).toMatch(/signature 2 .*does not verify/);
  });

  it('refuses the maker approving their own plan', () => {
    expect(refusal(() => verifyPlan(countersign(signedPlan(ana), ana), approvers, NOW))).toMatch(
      /maker cannot approve/,
    );
  });

  it('refuses an approver not in the approvers file', () => {
    expect(refusal(() => verifyPlan(countersign(signedPlan(ana), stranger), approvers, NOW))).toMatch(
      /"Mallory".*not in the approvers file/,
    );
  });

  it('refuses a maker not in the approvers file', () => {
    expect(refusal(() => verifyPlan(countersign(signedPlan(stranger), bo), approvers, NOW))).toMatch(
      /maker "Mallory".*not in the approvers file/,
    );
  });

  it('refuses the same approver twice', () => {
    const twice = countersign(
      countersign(signedPlan(ana), bo),
      bo,
      'approve',
      undefined,
      '2026-12-02T11:00:00.000Z',
    );
    expect(refusal(() => verifyPlan(twice, approvers, NOW))).toMatch(/signed this plan already/);
  });

  it('refuses an expired plan, at and after its expiry; accepts it a millisecond before', () => {
    const file = countersign(signedPlan(ana), bo);
    const at = new Date(file.plan.expiresAt);
    expect(refusal(() => verifyPlan(file, approvers, at))).toMatch(/expired at 2026-12-08T10:00:00.000Z/);
    expect(refusal(() => verifyPlan(file, approvers, new Date(at.getTime() + 86_400_000)))).toMatch(
      /expired/,
    );
    expect(verifyPlan(file, approvers, new Date(at.getTime() - 1)).approvals).toHaveLength(1);
  });

  it('refuses a maker signature that is not first, or a second maker signature', () => {
    const file = countersign(signedPlan(ana), bo);
    const swapped = { ...file, signatures: [file.signatures[1]!, file.signatures[0]!] };
    expect(refusal(() => verifyPlan(swapped, approvers, NOW))).toMatch(/first signature is not the maker's/);
    const two = { ...file, signatures: [file.signatures[0]!, file.signatures[0]!] };
    expect(refusal(() => verifyPlan(two, approvers, NOW))).toMatch(/one maker signature/);
  });

  it('refuses a plan whose maker field names another key than the signature', () => {
    const file = signedPlan(ana);
    const other = { ...file, plan: { ...file.plan, maker: bo.ref } };
    expect(refusal(() => verifyPlan(other, approvers, NOW))).toMatch(/plan names the maker "Bo Chen"/);
  });

  it('names the source in every refusal', () => {
    expect(refusal(() => verifyPlan(countersign(signedPlan(ana), ana), approvers, NOW, 'x.plan'))).toMatch(
      /^x\.plan: /,
    );
  });
});

describe('readPlanFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payops-plan-'));
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('reads a plan file back to what was written', async () => {
    const file = countersign(signedPlan(ana), bo);
    const read = await readPlanFile(write('ok.plan', JSON.stringify(file, null, 2)));
    expect(verifyPlan(read, approvers, NOW).approvals).toHaveLength(1);
  });

  it('refuses a missing file, bad JSON and a wrong shape, naming the file', async () => {
    await expect(readPlanFile(join(dir, 'none.plan'))).rejects.toThrow(/none\.plan.*no such file/);
    await expect(readPlanFile(write('bad.plan', '{"plan":'))).rejects.toThrow(/bad\.plan.*not JSON/);
    const noSig = { ...signedPlan(ana), signatures: [] };
    await expect(readPlanFile(write('nosig.plan', JSON.stringify(noSig)))).rejects.toThrow(
      /nosig\.plan.*signatures/,
    );
    const badAmount = signedPlan(ana, { totals: { USD: '1e3' } });
    await expect(readPlanFile(write('amt.plan', JSON.stringify(badAmount)))).rejects.toThrow(/plan\.totals/);
    await expect(readPlanFile(write('arr.plan', '[]'))).rejects.toBeInstanceOf(InputError);
  });
});
