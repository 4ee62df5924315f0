import { accessToken } from './ids';

/** OAuth2 client-credentials tokens the sandbox issued, plus any static tokens it was told to accept. */
export class AccessTokens {
  private readonly issued = new Map<string, number>();
  private issuedCount = 0;

  constructor(
    private readonly options: { ttlSeconds: number; staticTokens: readonly string[]; now: () => Date },
  ) {}

  issue(): { token: string; expiresIn: number } {
    const token = accessToken();
    this.issued.set(token, this.options.now().getTime() + this.options.ttlSeconds * 1000);
    this.issuedCount += 1;
    return { token, expiresIn: this.options.ttlSeconds };
  }

  accepts(token: string): boolean {
    if (this.options.staticTokens.includes(token)) return true;
    const expiresAt = this.issued.get(token);
    return expiresAt !== undefined && this.options.now().getTime() < expiresAt;
  }

  /** Control: every issued token stops working now, as after a credential rotation. */
  revokeAll(): void {
    this.issued.clear();
  }

  stats() {
    const now = this.options.now().getTime();
    const active = [...this.issued.values()].filter((expiresAt) => now < expiresAt).length;
    return { issued: this.issuedCount, active };
  }
}
