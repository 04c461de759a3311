// The payout request of gateway-api.md as data (types and formats of every field, nested objects
// included) and its required fields (design.md §1.7).
import { arr, type ObjectSpec, obj, str } from '../pay/schema.js';

const s = str();

export const PAYOUT_SPEC: ObjectSpec = obj({
  beneficiary_id: s,
  beneficiary: obj({
    first_name: s,
    last_name: s,
    company_name: s,
    date_of_birth: str('date'),
    entity_type: s,
    additional_info: obj({
      business_area: s,
      business_phone_number: s,
      business_registration_number: s,
      personal_email: s,
      personal_id_number: s,
      personal_id_type: s,
      personal_mobile_number: s,
      personal_net_monthly_average_income: s,
      personal_phone_country_code: s,
      personal_phone_area_code: s,
      // A country code like every *_country field: upper-cased (a gateway failed "de").
      personal_fiscal_country: str('country'),
    }),
    address: obj({
      city: s,
      country_code: str('country'),
      postcode: s,
      state: s,
      street: s,
      number: s,
      street_address: s,
      complement: s,
    }),
    person_documents: arr(obj({ file_type: s, file_url: s, labels: arr(s) })),
    bank_details: obj({
      account_currency: str('currency'),
      account_name: s,
      owner_document_number: s,
      account_number: s,
      bank_account_category: s,
      bank_branch: s,
      bank_country_code: str('country'),
      bank_code: s,
      bank_name: s,
      bank_street_address: s,
      binding_mobile_number: s,
      iban: s,
      swift_code: s,
      transaction_reference: s,
    }),
  }),
  payer: obj({
    first_name: s,
    last_name: s,
    company_name: s,
    date_of_birth: str('date'),
    entity_type: s,
    additional_info: obj({
      business_registration_number: s,
      business_registration_type: s,
      external_id: s,
      personal_email: s,
      personal_id_number: s,
      job: s,
    }),
    address: obj({ city: s, country_code: str('country'), postcode: s, state: s, street_address: s }),
  }),
  client_data: s,
  fee_paid_by: s,
  payment_amount: str('decimal'),
  payment_currency: str('currency'),
  payment_date: str('date'),
  payment_method: s,
  reason: s,
  reference: s,
  request_id: str('uuid'),
  source_amount: str('decimal'),
  source_currency: str('currency'),
  swift_charge_option: s,
  fund_source: s,
  notify_url: s,
});

/** Required payout fields besides request_id (which payops generates when absent). */
export const PAYOUT_REQUIRED: readonly string[] = [
  'payment_amount',
  'payment_currency',
  'payment_method',
  'beneficiary.entity_type',
  'beneficiary.bank_details.account_name',
  'payer.entity_type',
];

/** One of these identifies the beneficiary's account. */
export const PAYOUT_ACCOUNT_FIELDS: readonly string[] = [
  'beneficiary.bank_details.iban',
  'beneficiary.bank_details.account_number',
];
