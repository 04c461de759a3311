// Refund reasons by what they mean, not by their bytes. "Goodwill", "goodwill ", "goodwill" in NFD,
// "good\u200bwill" and a full-width "ｇｏｏｄｗｉｌｌ" are one reason to the person who typed them, so
// wherever payops decides "the same refund" (the gateway check before a run, reconciling a lost
// answer, the content key of a file) it compares this key, never the text as sent.

/** Characters that change a string's bytes but not what a person reads (format, default-ignorable). */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const SPACES = /\s+/gu;

/**
 * A reason's key: Unicode NFKC, invisible characters dropped, case-folded (upper then lower, so
 * `ß` and `SS` fold alike), runs of white space as one space, trimmed. Undefined is the empty reason.
 */
export function reasonKey(reason: string | undefined): string {
  if (reason === undefined || reason === '') return '';
  return reason
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC')
    .replace(SPACES, ' ')
    .trim();
}

/** Whether two reasons mean the same (reasonKey equal). */
export function sameReason(a: string | undefined, b: string | undefined): boolean {
  return a === b || reasonKey(a) === reasonKey(b);
}

/**
 * Whether `echoed`, a reason as a gateway returned it, can be the reason payops sent: the same key,
 * or the key cut short (the specification promises no byte-exact echo; a gateway may trim or
 * truncate). An empty echo is a truncation too: callers match on transaction, amount and a new
 * reference id first, and treat more than one candidate as ambiguous.
 */
export function reasonEchoes(sent: string | undefined, echoed: string | undefined): boolean {
  const s = reasonKey(sent);
  const e = reasonKey(echoed);
  return s === e || s.startsWith(e);
}
