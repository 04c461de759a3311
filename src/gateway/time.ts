// Gateway timestamps (`transaction_date`, `refund_date`, query ranges): `YYYYMMDDhhmmss`, UTC
// (design.md §1.6). One formatter and one parser for the client, the bulk engine and the sandbox.

const GATEWAY_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/** `YYYYMMDDhhmmss` in UTC, to the second. */
export function formatGatewayTime(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 19).replace(/[-T:]/g, '');
}

/** A gateway timestamp as a Date; undefined when it is not a real `YYYYMMDDhhmmss` time. */
export function parseGatewayTime(text: string | undefined): Date | undefined {
  const m = GATEWAY_TIME.exec(text ?? '');
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60 && s < 60
    ? date
    : undefined;
}
