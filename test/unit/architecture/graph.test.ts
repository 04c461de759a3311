// The import-graph checker on small synthetic trees, so that it can be seen to find what
// imports.test.ts relies on it to find: every kind of import, a cycle, a boundary crossed, a leaf
// that is not one.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  boundaryViolations,
  findCycles,
  type ImportGraph,
  importSpecifiers,
  leafViolations,
  readImportGraph,
} from './graph.js';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function tree(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'payops-graph-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('importSpecifiers', () => {
  it('finds static, type-only, multi-line, export-from, bare and dynamic imports', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      '  type C,',
      "} from './c.js';",
      "export { d } from './d.js';",
      "export type * from './e.js';",
      "import './f.js';",
      'export async function g() {',
      "  const { h } = await import('./h.js');",
      '  return import("./i.js").then(() => h);',
      '}',
      "import { parse } from 'csv-parse';",
    ].join('\n');
    expect(importSpecifiers(source).sort()).toEqual(
      ['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js', './h.js', './i.js', 'csv-parse'].sort(),
    );
  });

  it('ignores imports written in comments', () => {
    const source = [
      "// .action(async () => (await import('../x/run.js')).run())",
      '/*',
      "import { y } from './y.js';",
      '*/',
      "/** e.g. `await import('./z.js')` */",
      'export const n = 1;',
    ].join('\n');
    expect(importSpecifiers(source)).toEqual([]);
  });
});

describe('readImportGraph', () => {
  it('resolves .js specifiers to .ts files, folders to index.ts, and reports what names no file', () => {
    const dir = tree({
      'src/a.ts': "import type { B } from './b.js';\nimport { s } from './lib';\nimport './gone.js';",
      'src/b.ts': 'export type B = 1;',
      'src/lib/index.ts': 'export const s = 1;',
    });
    const { graph, unresolved } = readImportGraph(dir);
    expect(graph.get('src/a.ts')).toEqual(['src/b.ts', 'src/lib/index.ts']);
    expect(unresolved).toEqual(['src/a.ts → ./gone.js']);
  });
});

describe('findCycles', () => {
  it('finds none in a graph without a cycle', () => {
    expect(findCycles(graphOf({ a: ['b', 'c'], b: ['c'], c: [] }))).toEqual([]);
  });

  it('reports a cycle as the path that closes it', () => {
    expect(findCycles(graphOf({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }))).toEqual([['a', 'b', 'c', 'a']]);
    expect(findCycles(graphOf({ a: ['a'] }))).toEqual([['a', 'a']]);
  });

  it('finds a cycle made of a type-only import and a lazy import() in a real tree', () => {
    const dir = tree({
      'src/context.ts': "export async function f() { return (await import('./gateway/client.js')).g; }",
      'src/gateway/client.ts': "import type { Context } from '../context.js';\nexport const g = 1;",
    });
    expect(findCycles(readImportGraph(dir).graph)).toEqual([
      ['src/context.ts', 'src/gateway/client.ts', 'src/context.ts'],
    ]);
  });
});

describe('boundaryViolations and leafViolations', () => {
  const rules = [{ from: 'src/gateway/', forbidden: ['src/config/', 'src/context.ts'] }];

  it('reports an import across a boundary, naming both ends and the rule', () => {
    const dir = tree({
      'src/gateway/client.ts': "import type { Config } from '../config/resolve.js';",
      'src/gateway/transport.ts': "import { x } from '../errors.js';",
      'src/config/resolve.ts': 'export type Config = 1;',
      'src/errors.ts': 'export const x = 1;',
      'src/contextual.ts': "import { x } from './errors.js';",
    });
    expect(boundaryViolations(readImportGraph(dir).graph, rules)).toEqual([
      'src/gateway/client.ts → src/config/resolve.ts (src/gateway/ must not import src/config/)',
    ]);
  });

  it('matches a file rule exactly, not as a prefix', () => {
    const graph = graphOf({ 'src/gateway/a.ts': ['src/contextual.ts', 'src/context.ts'] });
    expect(boundaryViolations(graph, rules)).toEqual([
      'src/gateway/a.ts → src/context.ts (src/gateway/ must not import src/context.ts)',
    ]);
  });

  it('reports a leaf that imports from src, and a leaf that does not exist', () => {
    const graph = graphOf({ 'src/io.ts': ['src/errors.ts'], 'src/redact.ts': [] });
    expect(leafViolations(graph, ['src/io.ts', 'src/redact.ts', 'src/gone.ts'])).toEqual([
      'src/io.ts → src/errors.ts (a leaf module imports nothing from src)',
      'src/gone.ts does not exist',
    ]);
  });
});
