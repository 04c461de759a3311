import { describe, expect, it } from 'vitest';
import { announcement } from '../../../src/sandbox/run-sandbox.js';

// Tryout finding (issue 15): the plain sandbox's example command was ~105 columns, cut by an
// 80-column terminal in the middle of the line a newcomer copies.
describe('payops sandbox announcement', () => {
  it.each([
    ['plain', {}],
    ['--samples', { samples: true }],
    ['--seed', { seed: 1000 }],
  ])('fits 80 columns (%s)', (_name, opts) => {
    const text = announcement('http://127.0.0.1:8787', opts);
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(text).toMatch(/then try: {2}payops /);
  });
});
