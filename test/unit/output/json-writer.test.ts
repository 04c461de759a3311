import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { createJsonWriter, openJsonWriter } from '../../../src/output/json-writer.js';
import { capture } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'payops-jsonw-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createJsonWriter', () => {
  it('writes an empty array', async () => {
    const out = capture();
    const w = createJsonWriter(out);
    await w.end();
    expect(JSON.parse(out.text())).toEqual([]);
    expect(out.writableEnded).toBe(false);
  });

  it('writes one object per line, bigint as strings', async () => {
    const out = capture();
    const w = createJsonWriter(out);
    w.write({ a: '1', minor: 1050n });
    w.write({ a: '=x', nested: { b: [1, 2] } });
    await w.end();
    expect(out.text()).toBe('[\n{"a":"1","minor":"1050"},\n{"a":"=x","nested":{"b":[1,2]}}\n]\n');
  });

  it('streams many records to a file as valid JSON', async () => {
    const file = join(dir, 'out.json');
    const w = await openJsonWriter(file);
    for (let i = 0; i < 20_000; i++) await w.write({ i, text: `row ${i} "quoted"` });
    await w.end();
    const back = JSON.parse(readFileSync(file, 'utf8')) as Array<{ i: number }>;
    expect(back).toHaveLength(20_000);
    expect(back[19_999]!.i).toBe(19_999);
  });

  it('fails early when the file cannot be created', async () => {
    await expect(openJsonWriter(join(dir, 'no', 'such', 'x.json'))).rejects.toBeInstanceOf(UsageError);
  });
});
