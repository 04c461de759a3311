// The body of `payops call` from --json and --data (issue 13, item 11): a path segment or a JSON key
// named __proto__, constructor or prototype would reach Object.prototype (or the body's own
// prototype) and silently change what is signed; such keys are refused, and bodies are built on
// objects without a prototype.
import { afterEach, describe, expect, it } from 'vitest';
import { applyData, parseJsonBody, parseKeyPath } from '../../../src/call/body.js';
import { InputError, UsageError } from '../../../src/errors.js';

afterEach(() => {
  // Whatever a failing run left on the prototype must not poison the next test.
  for (const key of ['merchant_id', 'polluted', 'x'])
    delete (Object.prototype as Record<string, unknown>)[key];
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('--data paths', () => {
  it('builds nested objects and lists', () => {
    const body = applyData(Object.create(null), ['a.b=1', 'list[0].x=2', 'top=3']);
    expect(JSON.parse(JSON.stringify(body))).toEqual({ a: { b: '1' }, list: [{ x: '2' }], top: '3' });
  });

  it('refuses __proto__, constructor and prototype segments with a usage error (exit 2)', () => {
    for (const pair of [
      '__proto__.merchant_id=999',
      '__proto__=x',
      'constructor.prototype.polluted=1',
      'a.__proto__.polluted=1',
      'list[0].constructor=1',
      'a.prototype=1',
    ]) {
      const err = thrown(() => applyData(Object.create(null), [pair]));
      expect(err, pair).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(2);
      expect((err as UsageError).message).toMatch(/__proto__|constructor|prototype/);
    }
    expect(({} as Record<string, unknown>).merchant_id).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => parseKeyPath('__proto__')).toThrow(UsageError);
  });

  it('keeps merchant_id in the body when --data sets it next to other fields', () => {
    const body = applyData(Object.create(null), ['merchant_id=999', 'order_no=O1']);
    expect(body.merchant_id).toBe('999');
    expect(Object.getPrototypeOf(body)).toBeNull();
  });
});

describe('--json bodies', () => {
  it('refuses a "__proto__" or "constructor" key at any depth, naming it', () => {
    for (const text of [
      '{"__proto__":{"merchant_id":"999"},"order_no":"O1"}',
      '{"a":{"constructor":{"prototype":{"x":1}}}}',
      '{"list":[{"__proto__":{"x":1}}]}',
    ]) {
      const err = thrown(() => parseJsonBody(text, 'body.json'));
      expect(err, text).toBeInstanceOf(InputError);
      expect((err as InputError).exitCode).toBe(2);
      expect(JSON.stringify((err as InputError).problems)).toMatch(/__proto__|constructor/);
    }
    expect(({} as Record<string, unknown>).merchant_id).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('gives objects without a prototype, which --data then extends', () => {
    const body = parseJsonBody('{"a":{"b":"1"},"list":[{"c":"2"}]}', 'body.json');
    expect(Object.getPrototypeOf(body)).toBeNull();
    expect(Object.getPrototypeOf(body.a)).toBeNull();
    applyData(body, ['a.d=3']);
    expect(JSON.parse(JSON.stringify(body))).toEqual({ a: { b: '1', d: '3' }, list: [{ c: '2' }] });
  });
});
