// The leaf every writer, the gateway's --debug log and the sandbox mask card data with.
import { describe, expect, it } from 'vitest';
import {
  looksLikePan,
  luhnValid,
  maskPan,
  redactBody,
  redactText,
  redactWireBody,
} from '../../src/redact.js';

const PAN = '4111111111111111';

describe('card helpers', () => {
  it('checks Luhn and masks all but the first 6 and last 4 digits', () => {
    expect(luhnValid(PAN)).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('')).toBe(false);
    expect(looksLikePan(PAN)).toBe(true);
    expect(looksLikePan('123456789012')).toBe(false);
    expect(maskPan('4111 1111 1111 1111')).toBe('411111******1111');
    expect(maskPan('123')).toBe('***');
  });
});

describe('redaction', () => {
  it('masks card numbers and secrets in text, leaving other long numbers', () => {
    expect(redactText(`card ${PAN} order 1234567890123`, ['the-sign-key'])).toBe(
      'card 411111******1111 order 1234567890123',
    );
    expect(redactText('key the-sign-key', ['the-sign-key'])).toBe('key ****');
  });

  it('drops security codes and sign keys and masks the card in bodies, JSON, form and XML', () => {
    expect(redactBody({ card: PAN, security_code: '123', nested: [{ cvv: '1', note: PAN }] })).toEqual({
      card: '411111******1111',
      nested: [{ note: '411111******1111' }],
    });
    const json = redactWireBody(
      JSON.stringify({ card: PAN, sign_key: 'k', amount: '1.00' }),
      'application/json',
    );
    expect(JSON.parse(json)).toEqual({ card: '411111******1111', amount: '1.00' });
    const form = redactWireBody(`card=${PAN}&security_code=123&a=1`, 'application/x-www-form-urlencoded');
    expect(form).toBe('card=411111******1111&a=1');
    const xml = redactWireBody(`<respon><card>${PAN}</card><cvv>123</cvv></respon>`, 'application/xml');
    expect(xml).toBe('<respon><card>411111******1111</card><cvv>[removed]</cvv></respon>');
  });
});
