// The dependency rules of src/, checked on the real tree (docs/ARCHITECTURE.md): no import cycle,
// type-only and lazy imports included; the gateway is the API contract and knows nothing of the
// CLI around it; the sandbox is a gateway of its own and knows nothing of the CLI either; the shared
// folders (output, config, runs, …) import no feature folder; the leaf modules import nothing from
// src/.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { layersOf } from './doc.js';
import {
  type BoundaryRule,
  boundaryViolations,
  findCycles,
  type ImportGraph,
  leafViolations,
  readImportGraph,
} from './graph.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const { graph, unresolved } = readImportGraph(ROOT);
/** The layers as docs/ARCHITECTURE.md states them (doc.test.ts checks the table covers src/). */
const LAYERS = layersOf(readFileSync(resolve(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));

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
  'src/lifecycle/',
  'src/query/',
  'src/pay/',
  'src/payout/',
  'src/call/',
  'src/completion/',
  'src/setup/',
  'src/status/',
  'src/runs/',
];

/**
 * The features: what a command does, and the sandbox (a feature of the CLI from the client's view:
 * `payops sandbox`, --sandbox). Each may use the shared folders below; none of those uses a feature.
 */
const FEATURES = LAYERS.features ?? [];

/** What every feature uses: output, settings, the run lifecycle, the table reader, the gateway, money, .xlsx, the leaves. */
const SHARED = LAYERS.shared ?? [];

/** Shared folders import no feature folder: an import "back up" the layers. */
const LAYER_RULES: BoundaryRule[] = SHARED.map((from) => ({ from, forbidden: FEATURES }));

/**
 * The one import back up that stays, on purpose: resolving settings must recognise the sandbox's
 * published demo credentials (set alone, with no base_url, they still mean "use the sandbox", where a
 * real merchant id means "you forgot the gateway's address"), and they live in sandbox/accounts.ts, a
 * leaf (it imports nothing) that the sandbox's handlers and its public face share. Moving them out of
 * the sandbox would make the sandbox import from outside itself.
 */
const ALLOWED_BACK_UP = ['src/config/resolve.ts → src/sandbox/accounts.ts'];

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
    forbidden: ['src/bulk/', 'src/payout/', 'src/query/', 'src/runs/', 'src/commands/'],
  },
  { from: 'src/payout/', forbidden: ['src/bulk/'] },
  { from: 'src/query/', forbidden: ['src/bulk/'] },
];

/** Modules everything may import because they import nothing from src/ themselves. */
const LEAVES = LAYERS.leaves ?? [];

describe('the import graph of src/', () => {
  it('is read completely: every relative import names a file, lazy and type-only edges included', () => {
    expect(unresolved).toEqual([]);
    // The layers come from the doc: an empty or missing table would make every rule below vacuous.
    expect([FEATURES.length, SHARED.length, LEAVES.length].every((n) => n >= 4)).toBe(true);
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

  it('keeps the shared folders (output, config, runs, gateway, money, sheets) free of the features', () => {
    const backUp = boundaryViolations(graph, LAYER_RULES);
    expect(backUp.filter((v) => !ALLOWED_BACK_UP.some((edge) => v.startsWith(`${edge} (`)))).toEqual([]);
    // The allowance names an edge that exists (else it is stale and must go).
    for (const edge of ALLOWED_BACK_UP) {
      const [from, to] = edge.split(' → ') as [string, string];
      expect(graph.get(from)).toContain(to);
    }
  });

  it('the layer rules report an import back up, lazy or type-only alike', () => {
    const synthetic: ImportGraph = new Map([
      ['src/output/view.ts', ['src/query/labels.ts']],
      ['src/config/x.ts', ['src/setup/config-init.ts', 'src/factory.ts']],
      ['src/lifecycle/journal.ts', ['src/output/sink.ts', 'src/sandbox/index.ts']],
    ]);
    expect(boundaryViolations(synthetic, LAYER_RULES)).toEqual([
      'src/output/view.ts → src/query/labels.ts (src/output/ must not import src/query/)',
      'src/config/x.ts → src/setup/config-init.ts (src/config/ must not import src/setup/)',
      'src/config/x.ts → src/factory.ts (src/config/ must not import src/factory.ts)',
      'src/lifecycle/journal.ts → src/sandbox/index.ts (src/lifecycle/ must not import src/sandbox/)',
    ]);
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
