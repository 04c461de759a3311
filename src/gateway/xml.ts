// Parses the gateway's XML `respon` documents into plain objects of strings. Every value stays a
// string (no number coercion): the signature is computed over the text as sent, and `0012` must not
// become `12`. Repeated child elements (risk_reasons) become arrays; nested ones become objects.
import { GatewayError } from '../errors.js';

export type XmlValue = string | XmlObject | XmlValue[];
export interface XmlObject {
  [key: string]: XmlValue;
}

/** The children of the `respon` root element. Throws GatewayError when the text is not such a document. */
export async function parseRespon(text: string): Promise<Record<string, XmlValue>> {
  const { XMLParser, XMLValidator } = await import('fast-xml-parser');
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new GatewayError(`the gateway answered with malformed XML (${valid.err.msg})`);
  }
  const parser = new XMLParser({
    ignoreAttributes: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
  });
  const doc = parser.parse(text) as Record<string, unknown>;
  const root = doc.respon;
  if (root === undefined) {
    throw new GatewayError('the gateway answered with XML that has no <respon> root element');
  }
  // `<respon></respon>` parses as an empty string.
  if (typeof root !== 'object' || root === null || Array.isArray(root)) return {};
  return normalise(root) as Record<string, XmlValue>;
}

function normalise(value: unknown): XmlValue {
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    const out: XmlObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalise(v);
    return out;
  }
  return value === undefined || value === null ? '' : String(value);
}
