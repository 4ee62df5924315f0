import { currencyDecimals } from '../../currency-decimals';

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
