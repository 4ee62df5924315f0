import {
  crc32Decimal,
  signTransmission,
  signedMessage,
  verifyTransmission,
} from '../../src/providers/paypal/webhook-signature';
import { createSigningCertificate, type SigningCertificate } from '../../src/sandbox/paypal/certificate';
import { ProviderError } from '../../src/sandbox/errors';
import { formatMoney, parseMoney } from '../../src/sandbox/money';
import { RawJsonError, rawMemberValue } from '../../src/sandbox/raw-json';

describe('rawMemberValue', () => {
  it('returns the exact text of a top-level member', () => {
    const text =
      '{ "a" : 1.0 , "webhook_event" :\n {"x": [1, "]}", {"y": null}], "n": 12345678901234567890} , "z": true }';
    expect(rawMemberValue(text, 'webhook_event')).toBe(
      '{"x": [1, "]}", {"y": null}], "n": 12345678901234567890}',
    );
    expect(rawMemberValue(text, 'a')).toBe('1.0');
    expect(rawMemberValue(text, 'z')).toBe('true');
  });

  it('ignores nested members of that name, decodes escaped keys, and takes the last duplicate as JSON.parse does', () => {
    expect(rawMemberValue('{"outer":{"webhook_event":1}}', 'webhook_event')).toBeUndefined();
    expect(rawMemberValue('{"webhook\\u005fevent":"\\u00e9"}', 'webhook_event')).toBe('"\\u00e9"');
    expect(rawMemberValue('{"k":1,"k":[2]}', 'k')).toBe('[2]');
  });

  it.each([
    ['empty', ''],
    ['not an object', '[1]'],
    ['trailing comma', '{"a":1,}'],
    ['leading zero', '{"a":01}'],
    ['bad escape', '{"a":"\\x"}'],
    ['raw control character', '{"a":"tab\there"}'],
    ['trailing text', '{"a":1} x'],
    ['bad literal', '{"a":tru}'],
    ['unterminated string', '{"a":"open}'],
    ['nesting too deep', `{"a":${'['.repeat(300)}${']'.repeat(300)}}`],
  ])('rejects a text with %s', (_label, text) => {
    expect(() => rawMemberValue(text, 'a')).toThrow(RawJsonError);
  });

  it('agrees with JSON.parse about the value it finds', () => {
    const text = '{"webhook_event":{"a":[1,2,{"b":"c\\n"}],"d":-1.5e3,"e":"\\ud83d\\ude00"}}';
    const raw = rawMemberValue(text, 'webhook_event') ?? '';
    expect(JSON.parse(raw)).toEqual((JSON.parse(text) as { webhook_event: unknown }).webhook_event);
  });
});

describe('money in minor units', () => {
  it('parses and formats without floating point error', () => {
    expect(parseMoney({ currency_code: 'USD', value: '0.1' })).toEqual({ currency: 'USD', minor: 10n });
    expect(parseMoney({ currency_code: 'USD', value: '90071992547409.93' }).minor).toBe(9007199254740993n);
    expect(formatMoney({ currency: 'USD', minor: 5n })).toEqual({ currency_code: 'USD', value: '0.05' });
    expect(formatMoney({ currency: 'JPY', minor: 1500n })).toEqual({ currency_code: 'JPY', value: '1500' });
  });

  it.each([
    ['JPY', '1.5', 'DECIMALS_NOT_SUPPORTED'],
    ['USD', '1.005', 'DECIMAL_PRECISION'],
    ['USD', '-1.00', 'CANNOT_BE_ZERO_OR_NEGATIVE'],
    ['USD', '0', 'CANNOT_BE_ZERO_OR_NEGATIVE'],
    ['ABC', '1.00', 'INVALID_CURRENCY_CODE'],
  ])('refuses %s %s with %s', (currency_code, value, issue) => {
    try {
      parseMoney({ currency_code, value });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).body.details?.[0]?.issue).toBe(issue);
    }
  });
});

describe('webhook transmission signatures', () => {
  let signing: SigningCertificate;
  beforeAll(async () => {
    signing = await createSigningCertificate(new Date());
  });

  it('computes the unsigned CRC-32 of the body bytes in decimal', () => {
    expect(crc32Decimal('The quick brown fox jumps over the lazy dog')).toBe('1095738169');
    expect(crc32Decimal(Buffer.from('é', 'utf8'))).toBe(crc32Decimal('é'));
    expect(crc32Decimal('')).toBe('0');
  });

  it('signs id|time|webhook id|crc32 and verifies only the same fields and bytes', () => {
    const fields = {
      transmissionId: 't-1',
      transmissionTime: '2026-01-01T00:00:00Z',
      webhookId: 'W-1',
      body: '{"a":1.0}',
    };
    expect(signedMessage(fields)).toBe(`t-1|2026-01-01T00:00:00Z|W-1|${crc32Decimal('{"a":1.0}')}`);
    const transmissionSig = signTransmission(signedMessage(fields), signing.privateKeyPem);
    const verification = { ...fields, transmissionSig, certificatePem: signing.certificatePem };
    expect(verifyTransmission(verification)).toBe(true);
    expect(verifyTransmission({ ...verification, authAlgo: 'sha256withrsa' })).toBe(true);
    expect(verifyTransmission({ ...verification, body: '{"a":1}' })).toBe(false);
    expect(verifyTransmission({ ...verification, transmissionTime: '2026-01-01T00:00:01Z' })).toBe(false);
    expect(verifyTransmission({ ...verification, authAlgo: 'SHA1withRSA' })).toBe(false);
    expect(verifyTransmission({ ...verification, transmissionSig: 'not base64!' })).toBe(false);
    expect(verifyTransmission({ ...verification, certificatePem: 'garbage' })).toBe(false);
    expect(verifyTransmission({ ...verification, now: new Date('2099-01-01T00:00:00Z') })).toBe(false);
  });
});
