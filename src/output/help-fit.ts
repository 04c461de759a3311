// Help pages at the terminal's width (80 into a pipe). Commander wraps its own option columns; the
// text added after them (descriptions, examples) is written at ~100 columns and the terminal would
// cut it mid-word: it is wrapped here at spaces, and a command to copy with ` \` continuations.
import { displayWidth, wrapAtSpaces, wrapCommand } from './width.js';

/** An example: a command, two or more spaces, what it does. */
const EXAMPLE = /^(\s+)(payops\b.*?\S)\s{2,}(\S.*)$/;
/** A command to copy: never broken, whatever its width (a command over two lines runs as two). */
const COMMAND = /^\s*(\$ )?payops\b/;

/** `text` with every line wider than `columns` wrapped at spaces; unchanged without a width. */
export function fitHelp(text: string, columns: number | undefined): string {
  if (!columns || columns < 40) return text;
  const out: string[] = [];
  for (const line of paragraphs(text.split('\n'), columns)) {
    if (displayWidth(line) <= columns) {
      out.push(line);
      continue;
    }
    const example = EXAMPLE.exec(line);
    if (example) {
      // The command on its line, what it does below it.
      const [, lead, command, what] = example;
      out.push(...wrapCommand(`${lead}${command}`, columns, `${lead}    `));
      out.push(...wrap(`${lead}    ${what}`, columns, `${lead}    `));
    } else if (COMMAND.test(line)) {
      // A command to copy is broken only with a line continuation: pasted, it still runs as one.
      out.push(...wrapCommand(line, columns, `${/^\s*/.exec(line)![0]}    `));
    } else out.push(...wrap(line, columns, /^\s*/.exec(line)![0]));
  }
  return out.join('\n');
}

/**
 * Prose written hard-wrapped at ~100 columns (unindented lines, one after another) joined into one
 * line per paragraph where any of them is too wide, so that it wraps again evenly. A line ending
 * with ":" (a heading, a list's lead-in) ends its paragraph.
 */
function paragraphs(lines: readonly string[], columns: number): string[] {
  const out: string[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.some((l) => displayWidth(l) > columns)) out.push(para.join(' '));
    else out.push(...para);
    para = [];
  };
  for (const line of lines) {
    const prose = line !== '' && !/^\s/.test(line) && !COMMAND.test(line);
    if (!prose) {
      flush();
      out.push(line);
      continue;
    }
    para.push(line);
    if (line.endsWith(':')) flush();
  }
  flush();
  return out;
}

function wrap(line: string, columns: number, indent: string): string[] {
  // A word too long for its indent (a column list) moves left rather than run past the edge.
  return wrapAtSpaces(line, columns, indent).map((l) =>
    displayWidth(l) > columns ? `  ${l.trimStart()}` : l,
  );
}
