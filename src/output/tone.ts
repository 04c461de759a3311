// Colour for the words a person must not miss on stderr: `error:` red, `warning:` yellow, `hint:`
// cyan (issue 27 item 10). Only the label is coloured, after the text was made terminal-safe, so a
// message's own bytes never carry an escape; whether to colour at all is decided once (useColor).

const LABELS: ReadonlyArray<[RegExp, string]> = [
  [/^(\s*)(error:)/gm, '\u001b[1;31m'],
  [/^(\s*)((?:payops: )?warning:)/gm, '\u001b[1;33m'],
  [/^(\s*)(hint:)/gm, '\u001b[36m'],
];

/** `text` with the labels at the start of its lines coloured, when `color`. */
export function tone(text: string, color: boolean): string {
  if (!color) return text;
  let out = text;
  for (const [label, sgr] of LABELS) out = out.replace(label, `$1${sgr}$2\u001b[0m`);
  return out;
}
