// /v1/payout: the request (beneficiary, payer, bank details) and the payout it answers.
import type { Credentials } from './common.js';

export interface Address {
  city?: string;
  country_code?: string;
  postcode?: string;
  state?: string;
  street?: string;
  number?: string;
  street_address?: string;
  complement?: string;
}

export interface BankDetails {
  account_currency?: string;
  account_name: string;
  owner_document_number?: string;
  account_number?: string;
  /** Comma-separated list as text. */
  bank_account_category?: string;
  bank_branch?: string;
  bank_country_code?: string;
  bank_code?: string;
  bank_name?: string;
  bank_street_address?: string;
  binding_mobile_number?: string;
  iban?: string;
  swift_code?: string;
  transaction_reference?: string;
}

export interface Beneficiary {
  first_name?: string;
  last_name?: string;
  company_name?: string;
  /** YYYY-MM-DD */
  date_of_birth?: string;
  entity_type: string;
  additional_info?: {
    business_area?: string;
    business_phone_number?: string;
    business_registration_number?: string;
    personal_email?: string;
    personal_id_number?: string;
    personal_id_type?: string;
    personal_mobile_number?: string;
    personal_net_monthly_average_income?: string;
    personal_phone_country_code?: string;
    personal_phone_area_code?: string;
    personal_fiscal_country?: string;
  };
  address?: Address;
  person_documents?: Array<{ file_type?: string; file_url?: string; labels?: string[] }>;
  bank_details: BankDetails;
}

export interface Payer {
  first_name?: string;
  last_name?: string;
  company_name?: string;
  date_of_birth?: string;
  entity_type: string;
  additional_info?: {
    business_registration_number?: string;
    business_registration_type?: string;
    external_id?: string;
    personal_email?: string;
    personal_id_number?: string;
    job?: string;
  };
  address?: Pick<Address, 'city' | 'country_code' | 'postcode' | 'state' | 'street_address'>;
}

export interface PayoutRequest extends Credentials {
  beneficiary_id?: string;
  beneficiary: Beneficiary;
  payer: Payer;
  client_data?: string;
  fee_paid_by?: string;
  payment_amount: string;
  payment_currency: string;
  /** YYYY-MM-DD */
  payment_date?: string;
  payment_method: string;
  reason?: string;
  reference?: string;
  /** UUID; the gateway is idempotent on it. */
  request_id: string;
  source_amount?: string;
  source_currency?: string;
  swift_charge_option?: string;
  fund_source?: string;
  notify_url?: string;
}

export type PayoutResponseBankDetails = Omit<BankDetails, 'bank_code'> & { local_clearing_system?: string };

export interface PayoutResponse extends Omit<PayoutRequest, 'notify_url' | 'beneficiary'> {
  beneficiary: Omit<Beneficiary, 'bank_details'> & { bank_details: PayoutResponseBankDetails };
  amount_beneficiary_receives: number;
  amount_payer_pays: number;
  fee_amount: number;
  fee_currency: string;
  /** `YYYY-MM-DDThh:mm:ss+hhmm` */
  created_at: string;
  last_updated_at: string;
  failure_reason: string;
  failure_type: string;
  payer_id: string;
  transaction_id: string;
  short_reference_id: string;
  /** seen: COMPLETED */
  status: string;
}
