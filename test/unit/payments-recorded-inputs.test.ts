import { reauthorizeRequestOf, voidRequestOf } from '../../src/activities/payments';

// Timers schedule void and reauthorize as regular activities: a run may hold one a previous deploy recorded.
describe('inputs of void and reauthorize recorded by earlier versions', () => {
  it('reads a void scheduled as (authorizationId, requestId), with or without the id', () => {
    expect(voidRequestOf(['AUTH-1', 'wf-void'])).toEqual({
      authorizationId: 'AUTH-1',
      idempotencyKey: 'wf-void',
    });
    expect(voidRequestOf(['AUTH-1'])).toEqual({ authorizationId: 'AUTH-1' });
  });

  it('reads a reauthorization scheduled with { currency, total } and a requestId', () => {
    expect(
      reauthorizeRequestOf({
        authorizationId: 'AUTH-1',
        amount: { currency: 'USD', total: '7.50' },
        requestId: 'wf-reauthorize-timer-1',
      }),
    ).toEqual({
      authorizationId: 'AUTH-1',
      amount: { currency_code: 'USD', value: '7.50' },
      idempotencyKey: 'wf-reauthorize-timer-1',
    });
  });

  it('takes the port’s own requests unchanged', () => {
    const voiding = { authorizationId: 'AUTH-1', idempotencyKey: 'k' };
    const holding = { authorizationId: 'AUTH-1', amount: { currency_code: 'USD', value: '1.00' } };
    expect(voidRequestOf([voiding])).toBe(voiding);
    expect(reauthorizeRequestOf(holding)).toBe(holding);
  });
});
