// The dependency rules of src/, checked on the real tree (docs/ARCHITECTURE.md): no import cycle,
// type-only and lazy imports included; the gateway is the API contract and knows nothing of the
// CLI around it; the sandbox is a gateway of its own and knows nothing of the CLI either; the leaf
// modules import nothing from src/.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type BoundaryRule,
  boundaryViolations,
  findCycles,
  leafViolations,
  readImportGraph,
} from './graph.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const { graph, unresolved } = readImportGraph(ROOT);

/** The CLI around the gateway: commands, their implementations, configuration and output. */
const CLI = [
  'src/cli.ts',
  'src/context.ts',
  'src/factory.ts',
  'src/commands/',
  'src/config/',
  'src/output/',
  'src/bulk/',
  'src/tabular/',
  'src/runs/',
  'src/query/',
  'src/pay/',
  'src/payout/',
  'src/call/',
  'src/completion/',
];

const RULES: BoundaryRule[] = [
  { from: 'src/gateway/', forbidden: [...CLI, 'src/sandbox/'] },
  { from: 'src/sandbox/', forbidden: CLI },
];

/**
 * The table reader (CSV and .xlsx, input kind, pipes, read-as, hidden rows) is shared by bulk, payout
 * and query and knows none of them; payout and query read tables through it, never through bulk.
 */
const TABULAR_RULES: BoundaryRule[] = [
  {
    from: 'src/tabular/',
    forbidden: ['src/bulk/', 'src/payout/', 'src/query/', 'src/history/', 'src/commands/'],
  },
  { from: 'src/payout/', forbidden: ['src/bulk/'] },
  { from: 'src/query/', forbidden: ['src/bulk/'] },
];

/** Modules everything may import because they import nothing from src/ themselves. */
const LEAVES = [
  'src/io.ts',
  'src/output/fs-sync.ts',
  'src/redact.ts',
  'src/quote.ts',
  'src/sandbox/accounts.ts',
];

describe('the import graph of src/', () => {
  it('is read completely: every relative import names a file, lazy and type-only edges included', () => {
    expect(unresolved).toEqual([]);
    expect(graph.size).toBeGreaterThan(100);
    // One edge of each kind the reader must see: a lazy import(), a type-only import, an export-from.
    expect(graph.get('src/context.ts')).toContain('src/factory.ts');
    expect(graph.get('src/config/resolve.ts')).toContain('src/io.ts');
    expect(graph.get('src/sandbox/index.ts')).toContain('src/sandbox/accounts.ts');
  });

  it('has no cycle', () => {
    expect(findCycles(graph).map((c) => c.join(' → '))).toEqual([]);
  });

  it('keeps the gateway free of the CLI and the sandbox free of the CLI', () => {
    expect(boundaryViolations(graph, RULES)).toEqual([]);
  });

  it('keeps the table reader free of the features that read tables, and payout and query out of bulk', () => {
    expect(boundaryViolations(graph, TABULAR_RULES)).toEqual([]);
    // The rules bite on the real tree: payout and query read tables (from src/tabular/).
    expect(graph.get('src/payout/plan.ts')).toContain('src/tabular/csv-reader.ts');
    expect(graph.get('src/query/selector-file.ts')).toContain('src/tabular/csv-reader.ts');
  });

  it('keeps the leaf modules leaves', () => {
    expect(leafViolations(graph, LEAVES)).toEqual([]);
  });
});
