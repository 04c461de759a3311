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
