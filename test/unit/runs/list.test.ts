import { describe, expect, it } from 'vitest';
import type { RunInfo } from '../../../src/lifecycle/read.js';
import { stateLabel } from '../../../src/runs/list.js';

const run = (state: RunInfo['state'], reason?: string, ended = true): RunInfo =>
  ({
    runId: '20261124-000125-4567',
    dir: '/x',
    header: {},
    state,
    ...(ended
      ? {
          terminal: {
            type: state === 'finished' ? 'finished' : 'interrupted',
            ...(reason ? { reason } : {}),
          },
        }
      : {}),
  }) as unknown as RunInfo;

describe('runs list state', () => {
  it('says interrupted only for a run stopped by Ctrl-C (issue 15)', () => {
    expect(stateLabel(run('interrupted', 'interrupted'))).toBe('interrupted');
    // Ended with rows unknown or not sent (exit 3), or killed with no end record: unfinished.
    expect(stateLabel(run('interrupted'))).toBe('unfinished');
    expect(stateLabel(run('interrupted', undefined, false))).toBe('unfinished');
    expect(stateLabel(run('interrupted', 'unreachable'))).toBe('stopped: gateway unreachable');
    expect(stateLabel(run('finished'))).toBe('finished');
    expect(stateLabel(run('running', undefined, false))).toBe('running');
  });
});
