import { currencyDecimals } from '../../currency-decimals';
import type { Money } from '../resources';

// Stripe writes amounts as integers in the currency's smallest unit and currencies in lower case. Its
// zero-decimal currencies follow the ISO table, except those below: Stripe keeps two decimals for them on the
// wire (ISK, HUF, TWD, UGX written in cents), so the conversion uses Stripe's own list, not ISO's.

const stripeZeroDecimal = new Set([
  'BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'VND', 'VUV', 'XAF', 'XOF', 'XPF',
]); // prettier-ignore
const stripeThreeDecimal = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** How many decimals Stripe's integer amounts carry for `currency` (upper case). */
export function stripeDecimals(currency: string): number {
  if (stripeZeroDecimal.has(currency)) return 0;
  if (stripeThreeDecimal.has(currency)) return 3;
  return 2;
}

/** The lifecycle's money as Stripe's `{ amount, currency }`; undefined when the value has too many decimals. */
export function toStripeAmount(money: Money): { amount: number; currency: string } | undefined {
  const decimals = stripeDecimals(money.currency_code);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(money.value);
  if (!match) return undefined;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return undefined;
  const minor = BigInt(match[1] + fraction.padEnd(decimals, '0'));
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return { amount: Number(minor), currency: money.currency_code.toLowerCase() };
}

/** Stripe's integer amount in `currency` (any case) as the lifecycle's decimal money. */
export function fromStripeAmount(amount: number, currency: string): Money {
  const code = currency.toUpperCase();
  const decimals = stripeDecimals(code);
  const digits = BigInt(amount)
    .toString()
    .padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  // Written with the ISO decimals where Stripe keeps more (HUF 100.00 is "100"), unless that would round.
  const isoDecimals = Math.min(decimals, currencyDecimals(code) ?? decimals);
  let fraction = digits.slice(digits.length - decimals);
  while (fraction.length > isoDecimals && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return { currency_code: code, value: fraction ? `${whole}.${fraction}` : whole };
}
