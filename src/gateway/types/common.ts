// What every request and every batch or search answer of gateway-api.md carries.

/** Present on every request. */
export interface Credentials {
  merchant_id: string;
  account_id: string;
  encryption_data?: string;
}

export interface EnvelopeStatus {
  merchant_id: string;
  account_id: string;
  /** `1` OK, `0` the whole request was rejected. */
  return_status: string;
  return_message: string;
}
