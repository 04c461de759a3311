/**
 * Gathers written lines into blocks of `block` lines, handing each full block to `write` as one
 * string (one write per block rather than per line). `flush` hands over what is pending, if any.
 */
export interface BlockBuffer {
  /** Adds one line's text; returns the block's write when this line filled it. */
  add(text: string): Promise<void> | undefined;
  flush(): Promise<void> | undefined;
}

export function blockBuffer(write: (text: string) => Promise<void> | undefined, block = 512): BlockBuffer {
  let pending = '';
  let lines = 0;
  const flush = (): Promise<void> | undefined => {
    if (lines === 0) return undefined;
    const text = pending;
    pending = '';
    lines = 0;
    return write(text);
  };
  return {
    add(text) {
      pending += text;
      return ++lines >= block ? flush() : undefined;
    },
    flush,
  };
}
