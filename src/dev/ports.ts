import { createServer } from 'node:net';

function listenOnce(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(bound));
    });
  });
}

/** A port the OS says is free right now (tests run their servers on these). */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return listenOnce(0, host);
}

/** Fails with a message a person can act on when a port the stack needs is already taken. */
export async function assertPortFree(port: number, what: string, variable: string): Promise<void> {
  try {
    await listenOnce(port, '127.0.0.1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(
        `Port ${port} for ${what} is already taken. Stop what uses it, or set ${variable} to another port.`,
      );
    }
    throw error;
  }
}

/** A port a stack is about to listen on: what listens there and the variable that moves it. */
export interface PortClaim {
  port: number;
  what: string;
  variable: string;
}

/** Checks every port before anything starts, so that a taken one stops start-up at once. */
export async function assertPortsFree(claims: readonly PortClaim[]): Promise<void> {
  for (const { port, what, variable } of claims) await assertPortFree(port, what, variable);
}
