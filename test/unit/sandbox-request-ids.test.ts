import { RequestIdempotency } from '../../src/sandbox/idempotency';

// The sandbox keeps a PayPal-Request-Id as long as PayPal does (45 days; shortened here), then forgets it.

describe("the sandbox's PayPal-Request-Id", () => {
  it('replays the first answer within the retention, and processes the request again after it', async () => {
    let clock = Date.parse('2026-11-29T07:00:00.000Z');
    const ids = new RequestIdempotency(() => new Date(clock), 60_000);
    let captures = 0;
    const capture = () => ({ statusCode: 201, body: { id: `capture-${++captures}` } });

    expect(await ids.run('r1', capture)).toEqual({ statusCode: 201, body: { id: 'capture-1' } });
    clock += 59_999;
    expect(await ids.run('r1', capture)).toEqual({ statusCode: 201, body: { id: 'capture-1' } });
    clock += 1;
    expect(await ids.run('r1', capture)).toEqual({ statusCode: 201, body: { id: 'capture-2' } });
    expect(captures).toBe(2);
  });

  it('keeps an id 45 days by default', async () => {
    let clock = 0;
    const ids = new RequestIdempotency(() => new Date(clock));
    let captures = 0;
    const capture = () => ({ statusCode: 201, body: { id: `capture-${++captures}` } });
    await ids.run('r1', capture);
    clock = 45 * 24 * 60 * 60 * 1000 - 1;
    await ids.run('r1', capture);
    expect(captures).toBe(1);
    clock += 1;
    await ids.run('r1', capture);
    expect(captures).toBe(2);
  });
});
