// The little of oidc-provider (which ships no types) that src/dev/cluster/oidc-provider.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface OidcContext {
    oidc: {
      session?: { accountId?: string };
      entities: { Account?: { accountId: string }; AuthorizationCode?: { accountId: string } };
    };
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export const errors: { InvalidTarget: new (message?: string) => Error };
}
