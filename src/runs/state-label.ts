// The words for a run's state, shared by `runs list` and `payops status` so both say the same.
import type { RunInfo } from '../lifecycle/read.js';

// Why a run that did not finish stopped, in the words of its end record (src/bulk/engine/engine.ts).
const STOPPED: Record<string, string> = {
  unreachable: 'stopped: gateway unreachable',
  auth: 'stopped: credentials refused',
  route: 'stopped: gateway address',
  busy: 'stopped: gateway busy',
  journal: 'stopped: journal',
  error: 'stopped: error',
};

/**
 * The state column: "interrupted" only for a run stopped by Ctrl-C. A run that ended with rows
 * unknown or not sent (exit 3) is "unfinished"; one with no end record (the process was killed)
 * too: both are resumed the same way.
 */
export function stateLabel(r: RunInfo): string {
  if (r.state !== 'interrupted') return r.state;
  const reason = r.terminal?.reason;
  if (reason === 'interrupted') return 'interrupted';
  return (reason && STOPPED[reason]) ?? 'unfinished';
}
