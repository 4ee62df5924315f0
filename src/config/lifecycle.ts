import { z } from 'zod';
import { durationDefault, durationSchema } from '../duration';
import { expiryPolicies } from '../expiry-policies';
import { settingsPiece, type SettingsOf } from './piece';

/** What a lifecycle start leaves out: the API and the Nexus handlers fill it in from these. */
export const lifecycleSettings = settingsPiece(
  'Lifecycle defaults',
  {
    REAUTHORIZE_AFTER: durationSchema('reauthorizeAfter').optional(),
    EXPIRY_POLICY: z.enum(expiryPolicies).default('void'),
    LATE_EVENT_WINDOW: durationSchema('lateEventWindow').default(durationDefault('lateEventWindow')),
    IDEMPOTENCY_KEY_RETENTION: durationSchema('idempotencyKeyRetention').default(
      durationDefault('idempotencyKeyRetention'),
    ),
    TIMER_CALL_TIMEOUT: durationSchema('timerCallTimeout').default(durationDefault('timerCallTimeout')),
    EVENT_GRACE_PERIOD: durationSchema('eventGracePeriod').default(durationDefault('eventGracePeriod')),
  },
  {
    REAUTHORIZE_AFTER: {
      meaning:
        "reauthorization timer, measured from the authorization, for every lifecycle whose start gives none; at most 365 days. Unset: each provider's own (PayPal: when its 3-day honor period ends; Stripe: a day before the hold's capture_before)",
    },
    EXPIRY_POLICY: { meaning: 'what happens before expiry: `void`, `expire` or `capture` (what remains)' },
    LATE_EVENT_WINDOW: {
      meaning:
        'how long an ended lifecycle stays open to record late provider events; `0 seconds`: it completes at once',
    },
    IDEMPOTENCY_KEY_RETENTION: {
      meaning:
        "how long an answer is remembered under its `Idempotency-Key`; at most 90 days; less is raised to 45 days (PayPal's request-id retention)",
    },
    TIMER_CALL_TIMEOUT: {
      meaning: "how long a timer's provider call (reauthorize, void before expiry) may retry; at most 1 day",
    },
    EVENT_GRACE_PERIOD: {
      meaning:
        'how long a capture or refund answered PENDING waits for its settling event before the lifecycle reads the provider; at most 3 days',
    },
  },
);

/** What a lifecycle start leaves out, from the configuration. */
export function lifecycleStartDefaults(config: SettingsOf<typeof lifecycleSettings>) {
  return {
    ...(config.REAUTHORIZE_AFTER !== undefined && { reauthorizeAfter: config.REAUTHORIZE_AFTER }),
    expiryPolicy: config.EXPIRY_POLICY,
    lateEventWindow: config.LATE_EVENT_WINDOW,
    idempotencyKeyRetention: config.IDEMPOTENCY_KEY_RETENTION,
    timerCallTimeout: config.TIMER_CALL_TIMEOUT,
    eventGracePeriod: config.EVENT_GRACE_PERIOD,
  };
}
