// What docs/ARCHITECTURE.md says about the structure, read back so tests can hold the code to it:
// the layers table (features, shared, leaves) is the one list the import test uses, and the layout
// block names every folder and file it lists. Kept free of the real tree for doc.test.ts.

/** The members of each layer row of the "Layers" table: `| features | `src/a/` `src/b.ts` … |`. */
export function layersOf(doc: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const section = between(
    doc,
    '<!-- layers: read by test/unit/architecture/imports.test.ts -->',
    '<!-- /layers -->',
  );
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const name = cells[1];
    if (!name || !cells[2] || name === 'layer' || /^-+$/.test(name)) continue;
    out[name] = [...cells[2].matchAll(/`(src\/[^`]+)`/g)].map((m) => m[1] as string);
  }
  return out;
}

/**
 * The paths the layout block names: a line `src/x/   …` (at the left margin) names a folder or file;
 * a line indented by two spaces names files of the last folder, `a.ts`, `b.ts, c.ts` or `types/`.
 */
export function layoutPaths(doc: string): string[] {
  const block = between(doc, '## Layout', '### ');
  const code = block.slice(block.indexOf('```') + 3, block.lastIndexOf('```'));
  const out: string[] = [];
  let folder: string | undefined;
  for (const line of code.split('\n')) {
    const top = /^(src\/\S+|bin\/\S+|test\/\S+|bench\/|samples\/|scripts\/)/.exec(line);
    if (top) {
      const first = (top[1] as string).replace(/:$/, '');
      out.push(first);
      folder = first.startsWith('src/') && first.endsWith('/') ? first : undefined;
      continue;
    }
    const inner = /^ {2}(\S[^ ]*(?:, \S[^ ]*)*)\s{2,}/.exec(line);
    if (folder && inner) {
      for (const name of (inner[1] as string).split(', ')) {
        if (/^[\w.-]+(\.ts|\/)$/.test(name)) out.push(folder + name);
      }
    }
  }
  return out;
}

function between(doc: string, start: string, end: string): string {
  const from = doc.indexOf(start);
  if (from < 0) throw new Error(`docs/ARCHITECTURE.md has no "${start}"`);
  const to = doc.indexOf(end, from + start.length);
  return doc.slice(from + start.length, to < 0 ? undefined : to);
}
