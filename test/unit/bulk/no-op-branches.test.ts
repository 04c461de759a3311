// The bulk modules decide nothing by an operation's name: what differs between capture, cancel,
// review and refund is a named property of its entry in src/bulk/operations.ts, so that a new
// operation decides it by its entry (docs/ARCHITECTURE.md, "how to add an operation"). This reads
// every .ts under src/bulk/ but the table and fails on a branch on an operation's name.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BULK = join(ROOT, 'src/bulk');
const TABLE = 'src/bulk/operations.ts';

const NAMES = "'(?:refund|capture|cancel|review)'";
/** An operation compared (`op ===`, `header.op !==`, `operation ===`, either side) or switched on by name. */
const BRANCH = new RegExp(
  [
    String.raw`\b(?:op|operation)\s*[!=]==?`,
    String.raw`[!=]==?\s*(?:[\w$.]+\.)?(?:op|operation)\b(?!\s*[.([])`,
    `${NAMES}\\s*[!=]==?`,
    `[!=]==?\\s*${NAMES}`,
    String.raw`\bswitch\s*\(\s*(?:[\w$.]+\.)?(?:op|operation)\s*\)`,
    `\\bcase\\s+${NAMES}\\s*:`,
  ].join('|'),
);

/** Every line of `source` that branches on an operation's name, as `line: text`. */
function opBranches(source: string): string[] {
  const found: string[] = [];
  for (const [i, line] of source.split('\n').entries()) {
    // Comments may name operations and say why; code may not branch on them.
    const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '');
    if (BRANCH.test(code)) found.push(`${i + 1}: ${line.trim()}`);
  }
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the bulk modules have no branch on an operation name', () => {
  it('finds each form of such a branch (the check can fail)', () => {
    const cases = [
      "if (op === 'refund') x();",
      "if (op !== 'refund') return;",
      "const r = result.resent > 0 && op === 'refund';",
      "...(op === 'review' ? { reviews } : {}),",
      "if (header.op == 'capture') y();",
      "if ('cancel' === op) z();",
      "if (operation === 'review') z();",
      'if (kind === spec.op) z();',
      'switch (op) {',
      'switch (plan.op) {',
      "  case 'refund':",
    ];
    for (const c of cases) expect(opBranches(c), c).toHaveLength(1);
    // In a file among other lines, with its line number.
    expect(
      opBranches("const a = 1;\n// if (op === 'refund') in a comment\nif (op === 'refund') b();\n"),
    ).toEqual(["3: if (op === 'refund') b();"]);
  });

  it('leaves alone what is not such a branch', () => {
    const fine = [
      'const spec = OPERATIONS[op];',
      "if (OPERATIONS[op].reconcile.by === 'refundSearch') a();",
      'if (!OPERATIONS[op].verifiable) return;',
      "// a refund (op === 'refund') is kept",
      " * if (op !== 'refund') in a doc comment",
      'const content = op + digest;',
      'if (op.length === 0) a();',
      "if (o.outcome === 'already_done') a();",
    ];
    for (const c of fine) expect(opBranches(c), c).toEqual([]);
  });

  it('holds for every file of src/bulk/ but the operations table', () => {
    const files = tsFiles(BULK).map((f) => relative(ROOT, f));
    expect(files).toContain(TABLE);
    expect(files.length).toBeGreaterThan(10);
    const found = files
      .filter((f) => f !== TABLE)
      .flatMap((f) => opBranches(readFileSync(join(ROOT, f), 'utf8')).map((b) => `${f}:${b}`));
    expect(found).toEqual([]);
  });
});
