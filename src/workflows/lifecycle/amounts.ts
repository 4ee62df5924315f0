// Money in a lifecycle is kept in integer minor units, with the scale (decimal places) of the authorized
// amount, so partial captures never suffer floating-point drift. Amounts travel as decimal strings.

const decimal = /^(\d+)(?:\.(\d+))?$/;

export function scaleOf(value: string): number {
  return decimal.exec(value)?.[2]?.length ?? 0;
}

/** Minor units of `value` at `scale`, or undefined when it is not a decimal or has more places than the scale. */
export function toMinorUnits(value: string, scale: number): number | undefined {
  const match = decimal.exec(value);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (fraction.length > scale) return undefined;
  return Number(match[1]) * 10 ** scale + Number(fraction.padEnd(scale, '0') || '0');
}

export function formatMinorUnits(minor: number, scale: number): string {
  const text = String(minor).padStart(scale + 1, '0');
  return scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
}
