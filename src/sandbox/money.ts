import { z } from 'zod';
import { currencyDecimals, formatMinorUnits, toMinorUnits } from '../currency-decimals';
import { refusal } from './errors';

/** The currencies PayPal accepts for payments, with the decimals of the shared table (HUF, JPY and TWD have none). */
const paypalCurrencies = new Set([
  'AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'ILS', 'JPY', 'MYR', 'MXN', 'TWD', 'NZD',
  'NOK', 'PHP', 'PLN', 'GBP', 'RUB', 'SGD', 'SEK', 'CHF', 'THB', 'USD',
]); // prettier-ignore

function exponentOf(currency: string): number | undefined {
  return paypalCurrencies.has(currency) ? currencyDecimals(currency) : undefined;
}

/** A sum of money in integer minor units (cents), so arithmetic never rounds. */
export interface Money {
  currency: string;
  minor: bigint;
}

export const currencyCodeSchema = z.string().regex(/^[A-Z]{3}$/, 'a three-letter ISO-4217 code');
export const decimalValueSchema = z
  .string()
  .max(32)
  .regex(/^-?[0-9]+(\.[0-9]+)?$/, 'a decimal number written as a string, such as "10.00"');

/** The wire form, as PayPal writes it: `{ currency_code: 'USD', value: '10.00' }`. */
export const moneySchema = z.object({ currency_code: currencyCodeSchema, value: decimalValueSchema });

export type MoneyWire = z.infer<typeof moneySchema>;

/** Turns a syntactically valid amount into minor units, refusing what PayPal refuses (422). */
export function parseMoney({ currency_code, value }: MoneyWire): Money {
  const exponent = exponentOf(currency_code);
  if (exponent === undefined) throw refusal('INVALID_CURRENCY_CODE');
  const fraction = value.split('.')[1] ?? '';
  if (fraction.length > exponent)
    throw refusal(exponent === 0 ? 'DECIMALS_NOT_SUPPORTED' : 'DECIMAL_PRECISION');
  // The shared conversion takes no sign: a negative amount is refused as zero is.
  const minor = value.startsWith('-') ? 0n : (toMinorUnits(value, currency_code) ?? 0n);
  if (minor === 0n) throw refusal('CANNOT_BE_ZERO_OR_NEGATIVE');
  return { currency: currency_code, minor };
}

export function formatMoney({ currency, minor }: Money): MoneyWire {
  return { currency_code: currency, value: formatMinorUnits(minor, currency) };
}
