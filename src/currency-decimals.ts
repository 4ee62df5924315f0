// The decimals (minor unit) of each active ISO 4217 currency. Pure, so the workflow, the API and the sandbox
// share one table; a code not listed is not a currency anyone here computes with.

const noDecimals = [
  'BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF',
  'XOF', 'XPF',
  // ISO 4217 gives these two 2 decimals, but no amount below 1 is in use and PayPal refuses decimals for them.
  'HUF', 'TWD',
]; // prettier-ignore
const threeDecimals = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'];
const fourDecimals = ['CLF', 'UYW'];
const twoDecimals = [
  'AED', 'AFN', 'ALL', 'AMD', 'ANG', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BGN', 'BMD',
  'BND', 'BOB', 'BOV', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHE', 'CHF', 'CHW', 'CNY',
  'COP', 'COU', 'CRC', 'CUP', 'CVE', 'CZK', 'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD', 'FKP',
  'GBP', 'GEL', 'GHS', 'GIP', 'GMD', 'GTQ', 'GYD', 'HKD', 'HNL', 'HTG', 'IDR', 'ILS', 'INR', 'IRR', 'JMD',
  'KES', 'KGS', 'KHR', 'KPW', 'KYD', 'KZT', 'LAK', 'LBP', 'LKR', 'LRD', 'LSL', 'MAD', 'MDL', 'MGA', 'MKD',
  'MMK', 'MNT', 'MOP', 'MRU', 'MUR', 'MVR', 'MWK', 'MXN', 'MXV', 'MYR', 'MZN', 'NAD', 'NGN', 'NIO', 'NOK',
  'NPR', 'NZD', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN', 'QAR', 'RON', 'RSD', 'RUB', 'SAR', 'SBD', 'SCR',
  'SDG', 'SEK', 'SGD', 'SHP', 'SLE', 'SOS', 'SRD', 'SSP', 'STN', 'SVC', 'SYP', 'SZL', 'THB', 'TJS', 'TMT',
  'TOP', 'TRY', 'TTD', 'TZS', 'UAH', 'USD', 'USN', 'UYU', 'UZS', 'VED', 'VES', 'WST', 'XCD', 'XCG', 'YER',
  'ZAR', 'ZMW', 'ZWG',
]; // prettier-ignore

const decimalsByCurrency: ReadonlyMap<string, number> = new Map([
  ...noDecimals.map((code) => [code, 0] as const),
  ...twoDecimals.map((code) => [code, 2] as const),
  ...threeDecimals.map((code) => [code, 3] as const),
  ...fourDecimals.map((code) => [code, 4] as const),
]);

/** The decimals of an ISO 4217 currency code (JPY 0, USD 2, KWD 3), or undefined for a code it does not list. */
export function currencyDecimals(currency: string): number | undefined {
  return decimalsByCurrency.get(currency);
}
