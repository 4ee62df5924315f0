import { randomBytes } from 'node:crypto';
import { resourceId } from '../ids';

export const eventId = () => `WH-${resourceId()}-${resourceId()}`;
export const certificateId = () => `CERT-${randomBytes(4).toString('hex')}-${randomBytes(4).toString('hex')}`;
