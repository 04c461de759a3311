// Text formats the sandbox answers in: the XML `respon` document, escaped HTML, CSV cells, and the
// gateway's timestamps (UTC, design.md §1.6).

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

/** HTML attribute/text escaping: the same five characters. */
export const escapeHtml = escapeXml;

type XmlGroup = { readonly [child: string]: string };
/** A leaf, one element with children, or a list: the element repeated once per item (design.md §1.1). */
export type XmlValue = string | XmlGroup | readonly XmlGroup[];

/** `<?xml …?><respon>…</respon>`; children in the given order, one level of nesting at most. */
export function respon(children: Readonly<Record<string, XmlValue>>): string {
  let out = '<?xml version="1.0" encoding="UTF-8"?>\n<respon>';
  for (const [name, value] of Object.entries(children)) {
    if (typeof value === 'string') {
      out += `<${name}>${escapeXml(value)}</${name}>`;
    } else {
      for (const group of (Array.isArray(value) ? value : [value]) as readonly XmlGroup[]) {
        out += `<${name}>`;
        for (const [child, text] of Object.entries(group)) out += `<${child}>${escapeXml(text)}</${child}>`;
        out += `</${name}>`;
      }
    }
  }
  return `${out}</respon>\n`;
}

/** YYYY-MM-DDThh:mm:ss+0000 (the payout's created_at shape). */
export function offsetTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+0000`;
}

/** A CSV cell: quoted when it holds a separator, quote or line break. */
export function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
