import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { parseRespon } from '../../../src/gateway/xml.js';

describe('parseRespon', () => {
  it('keeps every value a string, exactly as sent', async () => {
    const data = await parseRespon(
      '<?xml version="1.0" encoding="UTF-8"?>\n<respon>\n  <amount>010.50</amount>\n  <order_status>1</order_status>\n  <note></note>\n  <token_id/>\n  <result_info>0000:Approved &amp; done</result_info>\n</respon>',
    );
    expect(data).toEqual({
      amount: '010.50',
      order_status: '1',
      note: '',
      token_id: '',
      result_info: '0000:Approved & done',
    });
  });

  it('gives one risk_reasons object, or an array when repeated', async () => {
    expect(
      await parseRespon('<respon><risk_reasons><name>a</name><status>1</status></risk_reasons></respon>'),
    ).toEqual({
      risk_reasons: { name: 'a', status: '1' },
    });
    const two = await parseRespon(
      '<respon><risk_reasons><name>a</name><status>1</status></risk_reasons><risk_reasons><name>b</name><status>0</status></risk_reasons></respon>',
    );
    expect(two.risk_reasons).toEqual([
      { name: 'a', status: '1' },
      { name: 'b', status: '0' },
    ]);
  });

  it('rejects malformed XML and documents without a respon root', async () => {
    await expect(parseRespon('<respon><a>1</b></respon>')).rejects.toBeInstanceOf(GatewayError);
    await expect(parseRespon('<other><a>1</a></other>')).rejects.toThrow(/respon/);
    await expect(parseRespon('garbage{')).rejects.toBeInstanceOf(GatewayError);
    expect(await parseRespon('<respon></respon>')).toEqual({});
  });
});

describe('parseRespon: values exactly as the gateway wrote them (issue 16)', () => {
  it('keeps leading and trailing spaces, and whitespace-only values', async () => {
    const data = await parseRespon('<respon>\n  <note> padded </note>\n  <blank>   </blank>\n</respon>\n');
    expect(data).toEqual({ note: ' padded ', blank: '   ' });
  });

  it('decodes named and numeric character references once', async () => {
    const data = await parseRespon(
      '<respon><a>caf&#233; caf&#xE9; caf&#xe9;</a><b>&lt;&gt;&amp;&quot;&apos;</b><c>&amp;#233; &amp;amp;</c></respon>',
    );
    expect(data).toEqual({ a: 'café café café', b: '<>&"\'', c: '&#233; &amp;' });
  });

  it('reads CDATA as its text, untouched, and non-ASCII text as is', async () => {
    const data = await parseRespon(
      '<respon><c><![CDATA[ <b> &amp; ]]></c><m>x <![CDATA[ y ]]> z</m><u> Zürich 東京 ✓ </u></respon>',
    );
    expect(data).toEqual({ c: ' <b> &amp; ', m: 'x  y  z', u: ' Zürich 東京 ✓ ' });
  });

  it('keeps spaces inside nested children too', async () => {
    const data = await parseRespon(
      '<respon>\n <risk_reasons>\n  <name> a </name>\n  <status>1</status>\n </risk_reasons>\n</respon>',
    );
    expect(data).toEqual({ risk_reasons: { name: ' a ', status: '1' } });
  });
});
