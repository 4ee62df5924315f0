import { refusal, refusalIssues, resourceNotFound } from './errors';
import { resourceId } from './ids';
import type { Money } from './money';
import type {
  AuthorizationRecord,
  AuthorizationStatus,
  CaptureOutcome,
  CaptureRecord,
  LedgerEvent,
  PaymentIntent,
} from './records';

// As at PayPal, captures may total up to 115 % of the authorization (shipping added, say), at most 75 USD more
// (in USD; the sandbox converts no other currency); a capture without an amount takes what remains of it.
const OVER_CAPTURE_PERCENT = 115n;
const OVER_CAPTURE_AT_MOST_USD_MINOR = 7500n;

/** The most captures of an authorization may total. */
function captureCeiling(amount: Money): bigint {
  const byPercent = (amount.minor * OVER_CAPTURE_PERCENT) / 100n;
  if (amount.currency !== 'USD') return byPercent;
  const capped = amount.minor + OVER_CAPTURE_AT_MOST_USD_MINOR;
  return byPercent < capped ? byPercent : capped;
}

export interface NewAuthorization {
  amount: Money;
  intent?: PaymentIntent;
  captureOutcome?: CaptureOutcome;
  invoiceId?: string;
  customId?: string;
  orderId?: string;
}

export interface CaptureInstruction {
  /** None means the whole amount left, as a final capture. */
  amount?: Money;
  finalCapture?: boolean;
  invoiceId?: string;
  noteToPayer?: string;
  softDescriptor?: string;
}

const openStatuses: ReadonlySet<AuthorizationStatus> = new Set(['CREATED', 'PARTIALLY_CAPTURED', 'PENDING']);
const dayMs = 86_400_000;

/**
 * The provider's books: authorizations and their captures, and every rule about moving money.
 * Every method is synchronous, so no two requests can interleave inside one state change.
 */
export class AuthorizationLedger {
  private readonly authorizations = new Map<string, AuthorizationRecord>();
  private readonly captures = new Map<string, CaptureRecord>();

  constructor(
    private readonly options: {
      validityDays: number;
      now: () => Date;
      onEvent: (event: LedgerEvent) => void;
    },
  ) {}

  create(input: NewAuthorization): AuthorizationRecord {
    const now = this.options.now();
    const record: AuthorizationRecord = {
      id: resourceId(),
      intent: input.intent ?? 'AUTHORIZE',
      status: 'CREATED',
      amount: input.amount,
      capturedMinor: 0n,
      captureOutcome: input.captureOutcome ?? 'COMPLETED',
      invoiceId: input.invoiceId,
      customId: input.customId,
      orderId: input.orderId,
      createTime: now,
      updateTime: now,
      expirationTime: new Date(now.getTime() + this.options.validityDays * dayMs),
      captureIds: [],
    };
    this.authorizations.set(record.id, record);
    this.options.onEvent({ type: 'PAYMENT.AUTHORIZATION.CREATED', authorization: record });
    return record;
  }

  /** The authorization as of now: one past its expiration time is EXPIRED. */
  authorization(id: string): AuthorizationRecord {
    const record = this.authorizations.get(id);
    if (!record) throw resourceNotFound(`Specified resource ID does not exist: authorization ${id}.`);
    if (openStatuses.has(record.status) && this.options.now() >= record.expirationTime) {
      record.statusBeforeExpiry = record.status;
      record.status = 'EXPIRED';
      record.updateTime = record.expirationTime;
    }
    return record;
  }

  capture(id: string): CaptureRecord {
    const record = this.captures.get(id);
    if (!record) throw resourceNotFound(`Specified resource ID does not exist: capture ${id}.`);
    return record;
  }

  capturesOf(authorizationId: string): CaptureRecord[] {
    return this.authorization(authorizationId).captureIds.map((id) => this.capture(id));
  }

  captureAuthorization(id: string, instruction: CaptureInstruction): CaptureRecord {
    const authorization = this.authorization(id);
    if (authorization.intent !== 'AUTHORIZE') throw refusal('ACTION_DOES_NOT_MATCH_INTENT');
    if (authorization.reauthorizationId) {
      throw refusal(
        'AUTHORIZATION_REAUTHORIZED',
        `This authorization was reauthorized as ${authorization.reauthorizationId}; capture that one instead.`,
      );
    }
    assertCapturable(authorization);
    if (instruction.amount && instruction.amount.currency !== authorization.amount.currency) {
      throw refusal('AUTH_CAPTURE_CURRENCY_MISMATCH');
    }
    const remaining = authorization.amount.minor - authorization.capturedMinor;
    const allowance = captureCeiling(authorization.amount) - authorization.capturedMinor;
    const requested = instruction.amount?.minor ?? remaining;
    if (requested > allowance) throw refusal('MAX_CAPTURE_AMOUNT_EXCEEDED');

    const now = this.options.now();
    const capture: CaptureRecord = {
      id: resourceId(),
      authorizationId: id,
      status: authorization.captureOutcome,
      amount: { currency: authorization.amount.currency, minor: requested },
      finalCapture: instruction.finalCapture ?? instruction.amount === undefined,
      invoiceId: instruction.invoiceId ?? authorization.invoiceId,
      noteToPayer: instruction.noteToPayer,
      softDescriptor: instruction.softDescriptor,
      createTime: now,
      updateTime: now,
    };
    this.captures.set(capture.id, capture);
    authorization.captureIds.push(capture.id);
    if (capture.status !== 'DECLINED') {
      authorization.capturedMinor += requested;
      const complete = capture.finalCapture || authorization.capturedMinor >= authorization.amount.minor;
      authorization.status = complete ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
      authorization.updateTime = now;
    }
    this.options.onEvent({ type: captureEventType[authorization.captureOutcome], capture });
    return capture;
  }

  /**
   * PayPal's rule: a reauthorization cannot be voided; voiding the original voids it together with its
   * reauthorization, which is where any money still held now sits.
   */
  voidAuthorization(id: string): AuthorizationRecord {
    const original = this.authorization(id);
    if (original.parentId) throw refusal('CANNOT_BE_VOIDED');
    const chain = [original];
    if (original.reauthorizationId) chain.unshift(this.authorization(original.reauthorizationId));
    const current = chain[0] ?? original;
    if (current.status === 'CAPTURED') throw refusal('PREVIOUSLY_CAPTURED');
    if (current.status === 'VOIDED') throw refusal('PREVIOUSLY_VOIDED');
    if (current.status === 'EXPIRED') throw refusal('AUTHORIZATION_EXPIRED');
    const now = this.options.now();
    for (const record of chain.filter((member) => openStatuses.has(member.status))) {
      record.status = 'VOIDED';
      record.updateTime = now;
      this.options.onEvent({ type: 'PAYMENT.AUTHORIZATION.VOIDED', authorization: record });
    }
    return original;
  }

  /**
   * A new authorization for `amount` (default: what is left uncaptured) that replaces the original for
   * captures. It keeps the original's expiration time: PayPal counts the 29 days from the first authorization.
   */
  reauthorize(id: string, amount?: Money): AuthorizationRecord {
    const original = this.authorization(id);
    if (original.parentId || original.reauthorizationId) throw refusal('REAUTHORIZATION_NOT_SUPPORTED');
    assertCapturable(original);
    if (amount && amount.currency !== original.amount.currency) throw refusal('AUTH_CURRENCY_MISMATCH');
    const remaining = original.amount.minor - original.capturedMinor;
    if (amount && amount.minor > remaining) throw refusal('REAUTHORIZATION_AMOUNT_EXCEEDED');

    const now = this.options.now();
    const reauthorization: AuthorizationRecord = {
      ...original,
      id: resourceId(),
      status: 'CREATED',
      amount: amount ?? { currency: original.amount.currency, minor: remaining },
      capturedMinor: 0n,
      createTime: now,
      updateTime: now,
      captureIds: [],
      parentId: original.id,
      reauthorizationId: undefined,
    };
    this.authorizations.set(reauthorization.id, reauthorization);
    original.reauthorizationId = reauthorization.id;
    original.updateTime = now;
    this.options.onEvent({ type: 'PAYMENT.AUTHORIZATION.CREATED', authorization: reauthorization });
    return reauthorization;
  }

  /** Control: the authorization's validity ends now. */
  expire(id: string): AuthorizationRecord {
    const authorization = this.authorization(id);
    if (authorization.status === 'EXPIRED') return authorization;
    assertCapturable(authorization);
    const now = this.options.now();
    authorization.statusBeforeExpiry = authorization.status;
    authorization.status = 'EXPIRED';
    authorization.expirationTime = now;
    authorization.updateTime = now;
    return authorization;
  }

  /**
   * Control: the authorization's validity ends at `at` instead (past: it has expired on its next read). The
   * validity is the first authorization's, which its reauthorization keeps, so the two move together.
   */
  moveExpiration(id: string, at: Date): AuthorizationRecord {
    const authorization = this.authorization(id);
    assertCapturable(authorization);
    const relative = authorization.parentId ?? authorization.reauthorizationId;
    for (const member of [authorization, relative && this.authorizations.get(relative)]) {
      if (member) member.expirationTime = at;
    }
    return this.authorization(id);
  }

  /** Control: the bank settles a PENDING capture. */
  completeCapture(id: string): CaptureRecord {
    const capture = this.capture(id);
    if (capture.status !== 'PENDING')
      throw refusal('CAPTURE_NOT_PENDING', `${refusalIssues.CAPTURE_NOT_PENDING} It is ${capture.status}.`);
    capture.status = 'COMPLETED';
    capture.updateTime = this.options.now();
    this.options.onEvent({ type: 'PAYMENT.CAPTURE.COMPLETED', capture });
    return capture;
  }
}

const captureEventType = {
  COMPLETED: 'PAYMENT.CAPTURE.COMPLETED',
  PENDING: 'PAYMENT.CAPTURE.PENDING',
  DECLINED: 'PAYMENT.CAPTURE.DENIED',
} as const satisfies Record<CaptureOutcome, string>;

function assertCapturable(authorization: AuthorizationRecord): void {
  switch (authorization.status) {
    case 'CAPTURED':
      throw refusal('AUTHORIZATION_ALREADY_CAPTURED');
    case 'VOIDED':
      throw refusal('AUTHORIZATION_VOIDED');
    case 'EXPIRED':
      throw refusal('AUTHORIZATION_EXPIRED');
    default:
  }
}
