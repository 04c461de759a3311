import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startPump, WAITING_FILE } from '../../../src/bulk/engine/results-pump.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'payops-pump-'));
  dirs.push(d);
  return d;
}

describe('results pump', () => {
  it('writes a row only after a sync that began after it was queued', async () => {
    const events: string[] = [];
    let syncs = 0;
    const pump = startPump({
      dir: folder(),
      sync: async () => {
        const n = ++syncs;
        events.push(`sync ${n} begins`);
        await new Promise((r) => setImmediate(r));
        events.push(`sync ${n} done`);
      },
      write: (cells) => {
        events.push(`write ${cells[0]}`);
        return undefined;
      },
    });
    pump.push(['a']);
    pump.push(['b']);
    await pump.finish();
    expect(events.indexOf('sync 1 done')).toBeLessThan(events.indexOf('write a'));
    expect(events.indexOf('write a')).toBeLessThan(events.indexOf('write b'));
  });

  it('never makes push wait on a destination that takes nothing; rows past the bound wait on disk, in order', async () => {
    const dir = folder();
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const written: string[] = [];
    const pump = startPump({
      dir,
      memoryBound: 100,
      sync: async () => {},
      write: (cells) => {
        written.push(cells[0]!);
        // The destination takes one row, then nothing until the gate opens.
        return written.length === 1 ? gate : undefined;
      },
    });
    for (let i = 0; i < 1000; i++) pump.push([`row ${i}`, 'x'.repeat(20)]);
    expect(pump.waiting).toBeGreaterThan(990);
    expect(existsSync(join(dir, WAITING_FILE))).toBe(true);
    open();
    await pump.finish();
    expect(written).toEqual(Array.from({ length: 1000 }, (_, i) => `row ${i}`));
    expect(existsSync(join(dir, WAITING_FILE))).toBe(false);
  });
});
