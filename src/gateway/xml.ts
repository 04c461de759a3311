// Parses the gateway's XML `respon` documents into plain objects of strings. Every value stays a
// string (no number coercion): the signature is computed over the text as sent, and `0012` must not
// become `12`. Nor is a value trimmed: ` padded ` is signed with its spaces. Character references
// (`&amp;`, `&#233;`, `&#xE9;`) are decoded once; CDATA is its text, untouched. An element the
// spec lists with children that may repeat (REPEATING) is always an array, even with one element
// (design.md §1.1: it is signed `risk_reasons[0].name`); other nested elements become objects.
import { GatewayError } from '../errors.js';

export type XmlValue = string | XmlObject | XmlValue[];
export interface XmlObject {
  [key: string]: XmlValue;
}

/** `respon` children that the spec lists with repeating children: always a list (design.md §1.1). */
export const REPEATING: readonly string[] = ['risk_reasons'];
const REPEATING_PATHS = new Set(REPEATING.map((name) => `respon.${name}`));

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
    // Values exactly as written; the indentation between elements is dropped in normalise.
    trimValues: false,
    // Numeric references (`&#233;`) decoded too, in the same single pass as the named ones.
    htmlEntities: true,
    // One <risk_reasons> must sign as `risk_reasons[0].…`, as two do: the same shape either way.
    jPath: true,
    isArray: (_name, jpath) => typeof jpath === 'string' && REPEATING_PATHS.has(jpath),
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

/** The parser's name for an element's own text beside its children. */
const TEXT = '#text';

function normalise(value: unknown): XmlValue {
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    const out: XmlObject = {};
    for (const [k, v] of Object.entries(value)) {
      // The whitespace between child elements (pretty-printing), not a value.
      if (k === TEXT && typeof v === 'string' && v.trim() === '') continue;
      out[k] = normalise(v);
    }
    return out;
  }
  return value === undefined || value === null ? '' : String(value);
}
