import type { Money } from '../../providers/resources';
import { formatMinorUnits, toMinorUnits } from '../../currency-decimals';
import type { CaptureRecord, LifecycleState } from './definitions';

/** A decimal amount in minor units of the lifecycle's currency, or undefined when it is not one. */
export function minorUnitsOf(state: LifecycleState, value: string): bigint | undefined {
  return toMinorUnits(value, state.currency);
}

/** An optional amount in minor units; none, or one that is not an amount, counts as zero. */
export function minorUnitsOrZero(state: LifecycleState, value: string | undefined): bigint {
  return value === undefined ? 0n : (minorUnitsOf(state, value) ?? 0n);
}

/** Minor units as an amount in the lifecycle's currency. */
export function amountOf(state: LifecycleState, minorUnits: bigint): Money {
  return { currency_code: state.currency, value: formatMinorUnits(minorUnits, state.currency) };
}

/** Captures that took money: completed or pending, also once refunded or reversed since. */
export function holdsMoney(capture: CaptureRecord): boolean {
  return capture.status !== 'DECLINED' && capture.status !== 'FAILED';
}
