// docs/ARCHITECTURE.md kept true: every path its layout names exists, every folder and top-level
// file of src/ is in the layout and in exactly one layer of its layers table (which the import test
// reads as its rules), and the readers of the doc are shown finding what they must on a small text.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { layersOf, layoutPaths } from './doc.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DOC = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');

/** Folders of src/ (as `src/x/`) and its top-level files (as `src/x.ts`). */
const SRC_ENTRIES = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).map((e) =>
  e.isDirectory() ? `src/${e.name}/` : `src/${e.name}`,
);

describe('the doc readers', () => {
  const sample = [
    '## Layout',
    '```',
    'src/cli.ts             the program',
    'src/bulk/              the main job',
    '  plan.ts              pass 1',
    '  a.ts, b.ts           two files',
    '  types/               shapes',
    '                       a continued line naming x.ts is not a file',
    '```',
    '### Next',
    '<!-- layers: read by test/unit/architecture/imports.test.ts -->',
    '| layer | members |',
    '| --- | --- |',
    '| features | `src/cli.ts` `src/bulk/` |',
    '| leaves | `src/io.ts` |',
    '<!-- /layers -->',
  ].join('\n');

  it('reads the layout block: folders, their files, and nothing from continuation lines', () => {
    expect(layoutPaths(sample)).toEqual([
      'src/cli.ts',
      'src/bulk/',
      'src/bulk/plan.ts',
      'src/bulk/a.ts',
      'src/bulk/b.ts',
      'src/bulk/types/',
    ]);
  });

  it('reads the layers table', () => {
    expect(layersOf(sample)).toEqual({ features: ['src/cli.ts', 'src/bulk/'], leaves: ['src/io.ts'] });
  });
});

describe('docs/ARCHITECTURE.md', () => {
  const named = layoutPaths(DOC);
  const layers = layersOf(DOC);

  it('names in its layout only paths that exist', () => {
    expect(named.length).toBeGreaterThan(60);
    expect(named.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('names every folder and top-level file of src/ in its layout', () => {
    expect(SRC_ENTRIES.filter((e) => !named.includes(e))).toEqual([]);
  });

  it('puts every folder and top-level file of src/ in exactly one layer, and the leaves among them', () => {
    const features = layers.features ?? [];
    const shared = layers.shared ?? [];
    expect(SRC_ENTRIES.filter((e) => features.includes(e) === shared.includes(e))).toEqual([]);
    expect([...features, ...shared].filter((e) => !SRC_ENTRIES.includes(e))).toEqual([]);
    expect((layers.leaves ?? []).filter((leaf) => !existsSync(join(ROOT, leaf)))).toEqual([]);
  });
});
