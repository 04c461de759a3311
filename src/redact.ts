// Card helpers (Luhn check, PAN masking) and the masking of card data and secrets in text and wire
// bodies: a leaf module, imported by the gateway's --debug log, the sandbox, the payment input
// checks and every writer of output. A card number is shown at most as first 6 and last 4 digits;
// a security code and a sign key are never shown at all.

const SECRET_FIELDS = new Set(['security_code', 'cvv', 'cvc', 'sign_key', 'signKey', 'password']);
const PAN_FIELDS = new Set(['card', 'card_number', 'pan']);

export function maskPan(pan: string): string {
  const digits = pan.replace(/\D/g, '');
  if (digits.length < 13) return '*'.repeat(digits.length);
  return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

/** Luhn check of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** True for 13–19 digits that pass Luhn: what a card number looks like. */
export function looksLikePan(value: string): boolean {
  return /^\d{13,19}$/.test(value) && luhnValid(value);
}

/** Replace anything that looks like a card number in free text with its masked form. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(/(?<!\d)\d{13,19}(?!\d)/g, (m) => (luhnValid(m) ? maskPan(m) : m));
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('****');
  }
  return out;
}

/** A deep copy of a request or response body fit for logs: card masked, secrets dropped. */
export function redactBody<T>(body: T): T {
  if (Array.isArray(body)) return body.map((v) => redactBody(v)) as T;
  if (body && typeof body === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (SECRET_FIELDS.has(key)) continue;
      if (PAN_FIELDS.has(key) && typeof value === 'string') out[key] = maskPan(value);
      else out[key] = redactBody(value);
    }
    return out as T;
  }
  if (typeof body === 'string') return redactText(body) as T;
  return body;
}

/** Form-urlencoded or JSON text fit for logs. */
export function redactWireBody(text: string, contentType: string | undefined): string {
  if (contentType?.includes('json')) {
    try {
      return JSON.stringify(redactBody(JSON.parse(text)));
    } catch {
      return redactText(text);
    }
  }
  if (contentType?.includes('x-www-form-urlencoded')) {
    const params = new URLSearchParams(text);
    for (const key of [...params.keys()]) {
      if (SECRET_FIELDS.has(key)) params.delete(key);
      else if (PAN_FIELDS.has(key)) params.set(key, maskPan(params.get(key) ?? ''));
    }
    return redactText(params.toString());
  }
  // XML and HTML: mask element/input values of secret fields, then any bare card number.
  return redactText(text.replace(/<(security_code|cvv|cvc)>[^<]*<\/\1>/g, '<$1>[removed]</$1>'));
}
