import type { PaymentsDialectName } from '../../providers/paypal/dialects';
import type { SandboxContext } from '../context';
import type { SigningCertificate } from './certificate';

/** The core plus what PayPal's contract adds: which of its two dialects, and the certificate deliveries are signed with. */
export interface PaypalContext extends SandboxContext {
  dialect: PaymentsDialectName;
  certificate: SigningCertificate;
  certificateUrl: () => string;
}
