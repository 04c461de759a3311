import { describe, expect, it } from 'vitest';
import { resolveFormat } from '../../../src/output/format.js';
import { fakeIo } from './helpers.js';

describe('resolveFormat', () => {
  const tty = fakeIo({ stdoutTTY: true }).io;
  const pipe = fakeIo({ stdoutTTY: false }).io;
  it('lets an explicit --output win', () => {
    expect(resolveFormat({ output: 'json', out: 'x.csv' }, tty)).toBe('json');
    expect(resolveFormat({ output: 'table' }, pipe)).toBe('table');
  });
  it('follows the --out extension', () => {
    expect(resolveFormat({ out: 'results.json' }, tty)).toBe('json');
    expect(resolveFormat({ out: 'RESULTS.JSON' }, tty)).toBe('json');
    expect(resolveFormat({ out: 'results.csv' }, tty)).toBe('csv');
    expect(resolveFormat({ out: 'results' }, tty)).toBe('csv');
  });
  it('shows a table on a terminal and CSV in a pipe', () => {
    expect(resolveFormat({}, tty)).toBe('table');
    expect(resolveFormat({}, pipe)).toBe('csv');
  });
});
