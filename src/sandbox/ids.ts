import { randomBytes, randomInt } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A PayPal-style resource id: 17 upper-case letters and digits, like `0VF52814937998046`. */
export function resourceId(length = 17): string {
  let id = '';
  for (let i = 0; i < length; i += 1) id += alphabet[randomInt(alphabet.length)];
  return id;
}

export const webhookId = () => resourceId(24);
export const accessToken = () => `A21AA${randomBytes(48).toString('base64url')}`;
