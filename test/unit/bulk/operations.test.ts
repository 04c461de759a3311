// The bulk operations table agrees with itself and with the gateway's batch rules it builds on, and
// stays cheap enough for the CLI shell to load.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wireElement } from '../../../src/bulk/engine/chunk.js';
import { ALL_ORDER_FLAGS, OPERATIONS } from '../../../src/bulk/operations.js';
import { allowedFrom, BATCH_RULES, elementMatches } from '../../../src/gateway/batch-rules.js';
import { BATCH_OPERATIONS, ENDPOINTS } from '../../../src/gateway/endpoints.js';

const SPECS = BATCH_OPERATIONS.map((op) => [op, OPERATIONS[op]] as const);

describe('OPERATIONS', () => {
  it('has one entry per batch operation, in the endpoints order', () => {
    expect(Object.keys(OPERATIONS)).toEqual([...BATCH_OPERATIONS]);
    for (const [op, spec] of SPECS) {
      expect(spec.op).toBe(op);
      expect(spec.elementFields).toBe(BATCH_RULES[op].elementFields);
    }
  });

  it.each(SPECS)('%s: columns are the element fields, each with its flag', (_op, spec) => {
    expect([...spec.columns.required, ...spec.columns.optional].sort()).toEqual(
      [...spec.elementFields].sort(),
    );
    expect(spec.flags.map((f) => f.column)).toEqual(spec.elementFields);
    for (const f of spec.flags) {
      expect(f.option).toBe(`--${f.column.replace(/_/g, '-')}`);
      // commander's key for the option
      expect(f.key).toBe(f.column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()));
      expect(f.help).toMatch(/^one order: /);
    }
  });

  it.each(SPECS)(
    '%s: result and table columns are fields the gateway answers or the input has',
    (op, spec) => {
      const own = BATCH_RULES[op].resultFields.filter((f) => !spec.elementFields.includes(f));
      expect([...spec.resultColumns].sort()).toEqual([...own].sort());
      expect(spec.resultColumns[0]).toBe(ENDPOINTS[op].statusField);
      for (const c of spec.table.input) expect(spec.elementFields).toContain(c);
      for (const c of spec.table.result) expect(spec.resultColumns).toContain(c);
      for (const f of spec.distinctBy) expect(spec.elementFields).toContain(f);
    },
  );

  it.each(SPECS)('%s: the amount that moves is a column of the operation', (_op, spec) => {
    expect(spec.moves === 'refundMinor').toBe(spec.elementFields.includes('refund_amount'));
  });

  it.each(SPECS)('%s: every element field can be made from a row', (op) => {
    const el = wireElement(op, {
      line: 2,
      transaction_id: 'T',
      order_no: 'O',
      currency: 'USD',
      amountMinor: 100n,
      refundMinor: 50n,
      review_flag: '1',
    });
    expect(Object.keys(el)).toEqual(OPERATIONS[op].elementFields);
  });

  it.each(SPECS)('%s: reconciled by an endpoint with a limit; done states are where it leads', (op, spec) => {
    expect(ENDPOINTS[spec.reconcile.by].limit).toBeGreaterThan(0);
    if (spec.reconcile.by !== 'query') return;
    const { done } = spec.reconcile;
    for (const t of BATCH_RULES[op].transitions) {
      // The element the transition needs is judged by a rule that counts its target as done…
      const rule = done.find((r) => elementMatches(r.when, t.when ?? {}));
      expect(rule?.states).toContain(t.to);
      // …and never by a state from which the operation is still to happen.
      for (const from of allowedFrom(op)) expect(rule?.states).not.toContain(from);
    }
  });

  it.each(SPECS)(
    '%s: a plan tallies approvals and rejections only where rows carry review_flag',
    (_op, spec) => {
      expect(spec.approvesOrRejects).toBe(spec.elementFields.includes('review_flag'));
    },
  );

  it.each(SPECS)('%s: --no-check is refused where a request applied twice is two effects', (_op, spec) => {
    // Without the check, nothing but the gateway's state machine keeps a row from being applied twice.
    if (spec.verifiable) expect(spec.checkRequired).toMatch(/--no-check .*nothing was sent$/);
    else expect(spec.checkRequired).toBeUndefined();
  });

  it('lists every single-order flag once, in column order', () => {
    expect(ALL_ORDER_FLAGS).toEqual([
      'transactionId',
      'orderNo',
      'currency',
      'amount',
      'refundAmount',
      'refundReason',
      'reviewFlag',
    ]);
  });

  it('loads only small data files (the CLI shell imports it for the help text)', () => {
    const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src');
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const text = readFileSync(join(src, file), 'utf8');
      for (const m of text.matchAll(/^import (?!type )[^;]*? from '(\.[^']+)';/gms)) {
        visit(join(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
      }
      expect(text).not.toMatch(/^import (?!type )[^;]*? from '(?!\.)[^']+';/ms);
    };
    visit('bulk/operations.ts');
    expect([...loaded].sort()).toEqual(['bulk/operations.ts', 'gateway/batch-rules.ts', 'gateway/status.ts']);
  });
});
