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

  // issue 24: the controls JSON.stringify leaves raw (DEL, C1, bidi) written as \u escapes; same data.
  it('leaves no character a terminal acts on, and parses back to the same text', async () => {
    const out = capture();
    const w = createJsonWriter(out);
    const note = 'a\x1b[2Jb\x7fc\u009bd\u202ee';
    w.write({ note });
    await w.end();
    expect(out.text()).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
    expect(JSON.parse(out.text())).toEqual([{ note }]);
  });
});
