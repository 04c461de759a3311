// The registry of used plans (approval/registry.ts): one claim per plan, however many try; a stale
// claim replaced only when asked; finished said once its run finished; a damaged entry refused.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  claimPlan,
  dropClaim,
  markBegun,
  markFinished,
  type PlanUse,
  plansDir,
  readUse,
} from '../../../src/approval/registry.js';
import { ConfigError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/run-cli.js';

const use = (runId: string): PlanUse => ({
  planId: 'pl_0123456789abcdef',
  planDigest: 'd'.repeat(64),
  op: 'refund',
  runId,
  startedAt: '2026-12-06T01:00:00.000Z',
});

describe('the registry of used plans', () => {
  it('lets one of many concurrent claims win, and leaves no temporary file', async () => {
    const state = tempDir();
    const ids = Array.from({ length: 8 }, (_, i) => `20261206-010000-000${i}`);
    const won = await Promise.all(ids.map((id) => claimPlan(state, use(id))));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = ids[won.indexOf(true)]!;
    expect((await readUse(state, use('x').planId))?.runId).toBe(winner);
    expect(readdirSync(plansDir(state))).toEqual(['pl_0123456789abcdef.json']);
  });

  it('replaces a stale claim only when asked, marks the named run finished, drops only its own claim', async () => {
    const state = tempDir();
    const first = use('20261206-010000-aaaa');
    expect(await claimPlan(state, first)).toBe(true);
    expect(await claimPlan(state, use('20261206-010000-bbbb'))).toBe(false);
    expect(await claimPlan(state, use('20261206-010000-bbbb'), first)).toBe(true);
    await markFinished(
      state,
      first.planId,
      '20261206-010000-aaaa',
      '2026-12-06T02:00:00.000Z',
      'a'.repeat(64),
    );
    expect((await readUse(state, first.planId))?.finishedAt).toBeUndefined();
    await markFinished(
      state,
      first.planId,
      '20261206-010000-bbbb',
      '2026-12-06T02:00:00.000Z',
      'b'.repeat(64),
    );
    expect(await readUse(state, first.planId)).toMatchObject({
      runId: '20261206-010000-bbbb',
      finishedAt: '2026-12-06T02:00:00.000Z',
      head: 'b'.repeat(64),
    });
    await dropClaim(state, first.planId, '20261206-010000-aaaa');
    expect(await readUse(state, first.planId)).toBeDefined();
    // A finished run's entry is a use, not a claim: never dropped.
    await dropClaim(state, first.planId, '20261206-010000-bbbb');
    expect(await readUse(state, first.planId)).toBeDefined();
  });

  it('drops a bare claim, never one whose run began', async () => {
    const state = tempDir();
    const claim = use('20261206-010000-aaaa');
    expect(await claimPlan(state, claim)).toBe(true);
    await dropClaim(state, claim.planId, claim.runId);
    expect(await readUse(state, claim.planId)).toBeUndefined();
    expect(await claimPlan(state, claim)).toBe(true);
    await markBegun(state, claim.planId, '20261206-010000-bbbb');
    expect((await readUse(state, claim.planId))?.begunAt).toBeUndefined();
    await markBegun(state, claim.planId, claim.runId);
    expect((await readUse(state, claim.planId))?.begunAt).toEqual(expect.any(String));
    await dropClaim(state, claim.planId, claim.runId);
    expect(await readUse(state, claim.planId)).toMatchObject({ runId: claim.runId });
  });

  it('refuses a damaged entry (it cannot tell whether the plan was used) and a plan id that is a path', async () => {
    const state = tempDir();
    await claimPlan(state, use('20261206-010000-aaaa'));
    const path = join(plansDir(state), 'pl_0123456789abcdef.json');
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, 20));
    await expect(readUse(state, 'pl_0123456789abcdef')).rejects.toThrow(ConfigError);
    await expect(readUse(state, '../../etc/passwd')).rejects.toThrow(/not a plan id/);
  });
});
