import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import type { Io } from '../../../src/io.js';
import { checkCardSecrets, readCardSecrets, secretsFromLines } from '../../../src/pay/card-input.js';

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const e = err as UsageError;
    return `${e.message} ${e.hint ?? ''}`;
  }
  throw new Error('expected a UsageError');
}

describe('card input', () => {
  it('reads card then security code, one per line, grouping allowed', () => {
    expect(secretsFromLines('4242 4242 4242 4242\r\n123\r\n')).toEqual({
      card: '4242424242424242',
      securityCode: '123',
    });
    expect(secretsFromLines('\n4000-0000-0000-0002\n\n9876\n')).toEqual({
      card: '4000000000000002',
      securityCode: '9876',
    });
  });

  it('refuses missing or invalid values without repeating them', () => {
    expect(message(() => secretsFromLines(''))).toMatch(/no card number on stdin/);
    expect(message(() => secretsFromLines('4242424242424242\n'))).toMatch(/only one line/);
    const luhn = message(() => checkCardSecrets('4111111111111112', '987'));
    expect(luhn).toMatch(/Luhn/);
    expect(luhn).not.toContain('4111');
    const code = message(() => checkCardSecrets('4111111111111111', '98a7'));
    expect(code).toMatch(/3 or 4 digits/);
    expect(code).not.toContain('98a7');
  });

  it('stops reading stdin after two lines, even when the pipe stays open', async () => {
    const { PassThrough } = await import('node:stream');
    const stdin = new PassThrough();
    stdin.write('4242424242424242\n');
    stdin.write('321\n');
    const io = { stdin } as unknown as Io;
    await expect(readCardSecrets(io)).resolves.toEqual({ card: '4242424242424242', securityCode: '321' });
  });

  it('reads stdin when it is not a terminal', async () => {
    const io = { stdin: Readable.from(['4242424242424242\n', '321\n']) } as unknown as Io;
    await expect(readCardSecrets(io)).resolves.toEqual({ card: '4242424242424242', securityCode: '321' });
  });
});
