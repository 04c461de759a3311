import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { canonical, createSigner } from '../../../src/gateway/signer.js';
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

  it('gives risk_reasons as a list always, one element or several (design.md §1.1, issue 24)', async () => {
    expect(
      await parseRespon('<respon><risk_reasons><name>a</name><status>1</status></risk_reasons></respon>'),
    ).toEqual({
      risk_reasons: [{ name: 'a', status: '1' }],
    });
    const two = await parseRespon(
      '<respon><risk_reasons><name>a</name><status>1</status></risk_reasons><risk_reasons><name>b</name><status>0</status></risk_reasons></respon>',
    );
    expect(two.risk_reasons).toEqual([
      { name: 'a', status: '1' },
      { name: 'b', status: '0' },
    ]);
    // Only the elements the spec lists as repeating: another nested element stays an object.
    expect(await parseRespon('<respon><other><name>a</name></other></respon>')).toEqual({
      other: { name: 'a' },
    });
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
    expect(data).toEqual({ risk_reasons: [{ name: ' a ', status: '1' }] });
  });
});

// docs/contract.md's XML test vectors: a repeating element is signed as a list even with one element.
describe('parseRespon + signer: the XML test vectors of docs/contract.md (issue 24)', () => {
  const signer = createSigner('sandbox-sign-key');
  const reason = (name: string, status: string) =>
    `<risk_reasons><name>${name}</name><status>${status}</status></risk_reasons>`;
  it.each([
    [
      'one risk reason',
      reason('amount_velocity', 'REVIEW'),
      'merchant_id=800001&order_no=O1&risk_reasons[0].name=amount_velocity&risk_reasons[0].status=REVIEW',
      'f6bf6093d605a1e03b50961feba1fe991110391559a0fc87519af32a7721dd41',
    ],
    [
      'two risk reasons',
      reason('amount_velocity', 'REVIEW') + reason('ip_country_match', 'ACCEPT'),
      'merchant_id=800001&order_no=O1&risk_reasons[0].name=amount_velocity&risk_reasons[0].status=REVIEW&risk_reasons[1].name=ip_country_match&risk_reasons[1].status=ACCEPT',
      'd6242360f098c1c5ffe4eecd57ed35dda52a94046aba857e08c0448bbe21b7f6',
    ],
  ])('%s', async (_name, reasons, expectedCanonical, signature) => {
    const xml = `<respon><merchant_id>800001</merchant_id><order_no>O1</order_no>${reasons}<encryption_data>${signature}</encryption_data></respon>`;
    const data = await parseRespon(xml);
    expect(canonical(data)).toBe(expectedCanonical);
    expect(signer.sign(data)).toBe(signature);
    expect(signer.verify(data, data.encryption_data as string)).toBe(true);
  });

  it('docs/contract.md carries the same vectors', () => {
    const doc = readFileSync(new URL('../../../docs/contract.md', import.meta.url), 'utf8');
    for (const text of [
      'risk_reasons[0].name=amount_velocity&risk_reasons[0].status=REVIEW',
      'f6bf6093d605a1e03b50961feba1fe991110391559a0fc87519af32a7721dd41',
      'd6242360f098c1c5ffe4eecd57ed35dda52a94046aba857e08c0448bbe21b7f6',
    ]) {
      expect(doc).toContain(text);
    }
  });
});
