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

// Money is exact: amounts are decimal strings in state and payloads, integer minor units (BigInt) while
// computing, with the currency's own ISO 4217 decimals (JPY 0, USD 2, KWD 3).

const decimal = /^(\d+)(?:\.(\d+))?$/;

/**
 * Minor units of a non-negative decimal amount in `currency` ("19.99" USD is 1999n, "1000" JPY is 1000n);
 * undefined when it is not a decimal, has more decimals than the currency, or the currency is unknown.
 */
export function toMinorUnits(value: string, currency: string): bigint | undefined {
  const decimals = currencyDecimals(currency);
  const match = decimal.exec(value);
  if (decimals === undefined || !match) return undefined;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) return undefined;
  return BigInt(match[1] + fraction.padEnd(decimals, '0'));
}

/** Non-negative minor units as a decimal string with the currency's decimals (1999n USD is "19.99"). */
export function formatMinorUnits(minor: bigint, currency: string): string {
  const decimals = currencyDecimals(currency);
  if (decimals === undefined) throw new RangeError(`unknown currency: ${currency}`);
  if (minor < 0n) throw new RangeError(`negative amount: ${minor} minor units of ${currency}`);
  const digits = minor.toString().padStart(decimals + 1, '0');
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}
