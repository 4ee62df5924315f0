import type Stripe from 'stripe';
import { replacementChoice, replaces } from '../../src/providers/stripe/replacement';
import { paymentIntentJson } from '../helpers/stripe-objects';

// What a Stripe reauthorization does about the intents that already replace the previous one: adopt one that
// holds what is asked, release every other that still holds money, create only when none is adoptable, and
// refuse when no new hold could replace the previous.

const intent = (overrides: Record<string, unknown> = {}) =>
  paymentIntentJson(overrides) as unknown as Stripe.PaymentIntent;
const previous = intent();
const asked = { amount: 5000, currency: 'usd' };
const replacement = (id: string, overrides: Record<string, unknown> = {}) =>
  intent({ id, metadata: { reauthorizes: 'pi_1' }, ...overrides });
const ids = (intents: readonly Stripe.PaymentIntent[]) => intents.map((each) => each.id);

describe('a Stripe reauthorization’s choice among the intents that replace the previous', () => {
  it('creates a new intent when none replaces the previous', () => {
    expect(replacementChoice(previous, [], asked)).toEqual({ action: 'create', release: [] });
  });

  it('knows a replacement by its metadata, never the previous itself', () => {
    expect(replaces(replacement('pi_2'), previous)).toBe(true);
    expect(replaces(intent({ id: 'pi_2', metadata: { reauthorizes: 'pi_0' } }), previous)).toBe(false);
    expect(replaces(intent({ metadata: { reauthorizes: 'pi_1' } }), previous)).toBe(false);
  });

  it('adopts the replacement that holds what is asked, the previous still held or canceled', () => {
    for (const from of [previous, intent({ status: 'canceled', amount_capturable: 0 })]) {
      const choice = replacementChoice(from, [replacement('pi_2')], asked);
      expect(choice).toMatchObject({ action: 'adopt', release: [] });
      expect(choice.action === 'adopt' && choice.intent.id).toBe('pi_2');
    }
  });

  it('releases every other replacement still holding money, whatever it holds', () => {
    const found = [
      replacement('pi_4', { amount: 9000, amount_capturable: 9000 }),
      replacement('pi_3'),
      replacement('pi_2'),
    ];
    const choice = replacementChoice(previous, found, asked);
    expect(choice.action === 'adopt' && choice.intent.id).toBe('pi_3');
    expect(ids(choice.release)).toEqual(['pi_4', 'pi_2']);
  });

  it('adopts no replacement holding another amount or currency: releases it and creates', () => {
    const found = [
      replacement('pi_3', { amount: 3000, amount_capturable: 3000 }),
      replacement('pi_2', { currency: 'eur' }),
    ];
    const choice = replacementChoice(previous, found, asked);
    expect(choice.action).toBe('create');
    expect(ids(choice.release)).toEqual(['pi_3', 'pi_2']);
  });

  it('adopts no replacement that is canceled: it holds nothing, and is left alone', () => {
    const canceled = replacement('pi_2', { status: 'canceled', amount_capturable: 0 });
    expect(replacementChoice(previous, [canceled], asked)).toEqual({ action: 'create', release: [] });
    const released = intent({ status: 'canceled', amount_capturable: 0 });
    expect(replacementChoice(released, [canceled], asked)).toEqual({ action: 'create', release: [] });
  });

  it('refuses when a replacement captured money the lifecycle does not know of, releasing those holding', () => {
    const found = [
      replacement('pi_3'),
      replacement('pi_2', { status: 'succeeded', amount_received: 5000, amount_capturable: 0 }),
    ];
    const choice = replacementChoice(previous, found, asked);
    expect(choice.action).toBe('refuse');
    expect(ids(choice.release)).toEqual(['pi_3']);
    expect(choice.action === 'refuse' && choice.error).toMatchObject({
      type: 'authorization_not_replaceable',
      retryable: false,
      message: expect.stringContaining('was replaced already by pi_2, which captured 5000'),
    });
  });

  it('refuses when the previous cannot be canceled, releasing the replacement that would not replace it', () => {
    for (const from of [
      intent({ status: 'succeeded', amount_received: 5000, amount_capturable: 0 }),
      intent({ amount_received: 2000, amount_capturable: 3000 }),
    ]) {
      const choice = replacementChoice(from, [replacement('pi_2')], asked);
      expect(choice.action).toBe('refuse');
      expect(ids(choice.release)).toEqual(['pi_2']);
      expect(choice.action === 'refuse' && choice.error.message).toContain('Stripe cannot cancel it');
    }
  });
});
