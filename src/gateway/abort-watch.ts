// Run a callback when a signal aborts, without letting the signal keep the callback's world alive.
//
// A bulk run listens on one run-wide signal for every one of its thousands of requests. Node's
// EventTarget leaves each removed listener linked to the one after it; once one of those links had
// reached V8's old generation, every later listener — and through its closure the request, its
// answer and its rows — stayed alive through each young-generation collection and was promoted, to
// be freed only by a full collection. A 100,000-refund run promoted some 60 MB that way
// (docs/performance.md). So the signal holds only a small relay, and the relay's link to the
// callback is cut when the request is over: a stale link then holds nothing of it.

interface Link {
  onAbort: (() => void) | undefined;
}

/**
 * Calls `onAbort` once when `signal` aborts, unless the returned function was called first. A signal
 * already aborted calls it at once.
 */
export function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return () => {};
  }
  const link: Link = { onAbort };
  const listener = relay(link);
  signal.addEventListener('abort', listener, { once: true });
  return () => {
    link.onAbort = undefined;
    signal.removeEventListener('abort', listener);
  };
}

/** Built out here so that its closure holds the link alone, not the caller's variables. */
function relay(link: Link): () => void {
  return () => {
    const f = link.onAbort;
    link.onAbort = undefined;
    f?.();
  };
}
