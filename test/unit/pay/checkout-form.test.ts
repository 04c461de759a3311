import { describe, expect, it } from 'vitest';
import { parseCheckoutForm, unescapeHtml } from '../../../src/pay/checkout-form.js';

describe('parseCheckoutForm', () => {
  it('reads action, method and hidden inputs with unescaped values', () => {
    const html = `<!doctype html><html><body onload="document.forms[0].submit()">
      <form id="f" method="post" action="https://gw.example/v1/checkout?a=1&amp;b=2">
        <input type="hidden" name="orderNo" value="O-1">
        <input type='hidden' name='goodsInfo' value='Mug &quot;XL&quot; &amp; co &#39;&#x41;'>
        <input type="hidden" name="empty" value="">
        <input type="hidden" name="novalue">
        <input type="submit">
      </form></body></html>`;
    const form = parseCheckoutForm(html);
    expect(form).toEqual({
      action: 'https://gw.example/v1/checkout?a=1&b=2',
      method: 'POST',
      fields: { orderNo: 'O-1', goodsInfo: `Mug "XL" & co 'A`, empty: '', novalue: '' },
    });
  });

  it('returns undefined without a form', () => {
    expect(parseCheckoutForm('<html></html>')).toBeUndefined();
  });

  it('leaves unknown entities as they are', () => {
    expect(unescapeHtml('a &bogus; b &lt;c&gt;')).toBe('a &bogus; b <c>');
  });
});
