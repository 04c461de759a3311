// The one V8 heap setting of a bulk run, set by the work that needs it: sending (execute.ts) and
// the gateway check's look-ups, which allocate as sending does (gateway-check.ts, look-ahead.ts).
import { setFlagsFromString } from 'node:v8';

/**
 * Sending allocates about 10 KB per order (request and answer text, parsed bodies), nearly all
 * short-lived; some survives into the old generation. V8 lets that generation grow up to 4x its live
 * size before collecting it, and on a busy machine, where its concurrent marking falls behind, a
 * 100,000-refund run peaked at 143 MB RSS instead of 119. Growing it by at most 1.5x keeps the peak
 * at ~120 MB, busy or not, for a few more (cheap) major collections. Read by V8 at each collection,
 * so setting it now takes effect.
 */
export function keepOldGenerationSmall(): void {
  setFlagsFromString('--heap-growing-percent=50');
}
