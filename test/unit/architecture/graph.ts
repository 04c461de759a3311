// The import graph of src/, read with plain fs and regular expressions: every static import and
// `export … from` (type-only ones included, since a type cycle still ties modules together) and
// every dynamic `import('…')` (a lazy import is still a dependency). Used by imports.test.ts; kept
// free of the real tree so that graph.test.ts can show it failing on a small synthetic graph.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Module id (path relative to the root, with `/`) → the module ids it imports. */
export type ImportGraph = Map<string, string[]>;

/** `from '…'` of import/export declarations, bare `import '…'`, and `import('…')`. */
const FROM = /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gms;
const BARE = /^\s*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * Module specifiers a source file imports, in order of appearance per kind. Whole-line comments are
 * dropped first, so that an example in a comment (`(await import('../x.js'))`) is not an import.
 */
export function importSpecifiers(source: string): string[] {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line) => (line.trimStart().startsWith('//') ? '' : line))
    .join('\n');
  const out: string[] = [];
  for (const re of [FROM, BARE, DYNAMIC]) for (const m of code.matchAll(re)) out.push(m[1] as string);
  return out;
}

/** The file a relative specifier names: `./x.js` is `./x.ts` in the source tree. */
export function resolveSpecifier(
  fromFile: string,
  spec: string,
  exists: (p: string) => boolean,
): string | undefined {
  const base = resolve(dirname(fromFile), spec);
  const candidates = base.endsWith('.js')
    ? [`${base.slice(0, -3)}.ts`, base]
    : [base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find(exists);
}

export interface ReadResult {
  graph: ImportGraph;
  /** Relative specifiers that name no file: `from → spec`. */
  unresolved: string[];
}

/** Read every `.ts` file under `dir` (ids relative to `root`). Package imports are left out. */
export function readImportGraph(root: string, dir = 'src'): ReadResult {
  const graph: ImportGraph = new Map();
  const unresolved: string[] = [];
  const isFile = (p: string) => existsSync(p) && statSync(p).isFile();
  for (const file of listTs(join(root, dir))) {
    const id = toId(root, file);
    const deps: string[] = [];
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolveSpecifier(file, spec, isFile);
      if (target === undefined) unresolved.push(`${id} → ${spec}`);
      else if (!deps.includes(toId(root, target))) deps.push(toId(root, target));
    }
    graph.set(id, deps);
  }
  return { graph, unresolved };
}

function listTs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listTs(join(dir, e.name)) : [join(dir, e.name)]))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .sort();
}

function toId(root: string, file: string): string {
  return relative(root, file).split(sep).join('/');
}

/**
 * One cycle per back edge of a depth-first walk, each as a path that returns to its start
 * (`a → b → a`). Empty when the graph has no cycle; every cycle has at least one back edge, so a
 * cyclic graph always yields at least one.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const s = state.get(next);
      if (s === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (s === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

export interface BoundaryRule {
  /** Modules under this prefix (a folder ending in `/`, or one file)… */
  from: string;
  /** …import nothing under these prefixes. */
  forbidden: string[];
}

/** Every edge that breaks a rule, as `from → to (rule)`. */
export function boundaryViolations(graph: ImportGraph, rules: readonly BoundaryRule[]): string[] {
  const out: string[] = [];
  for (const [from, deps] of graph) {
    for (const rule of rules) {
      if (!under(from, rule.from)) continue;
      for (const to of deps) {
        const hit = rule.forbidden.find((p) => under(to, p));
        if (hit) out.push(`${from} → ${to} (${rule.from} must not import ${hit})`);
      }
    }
  }
  return out;
}

/** Every import a leaf module makes into the tree (a leaf imports only node: and packages). */
export function leafViolations(graph: ImportGraph, leaves: readonly string[]): string[] {
  const out: string[] = [];
  for (const leaf of leaves) {
    const deps = graph.get(leaf);
    if (deps === undefined) out.push(`${leaf} does not exist`);
    else for (const to of deps) out.push(`${leaf} → ${to} (a leaf module imports nothing from src)`);
  }
  return out;
}

function under(id: string, prefix: string): boolean {
  return prefix.endsWith('/') ? id.startsWith(prefix) : id === prefix;
}
