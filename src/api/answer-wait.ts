import { ApiError } from './errors';

/**
 * The lifecycle's answer, or after `waitMs` a 504 with Retry-After: the command goes on in its lifecycle, and a
 * retry with the same Idempotency-Key answers what it did. A caller is never left waiting past its own timeout.
 */
export async function answerWithin<T>(waitMs: number, answer: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError(
            'ANSWER_PENDING',
            `no answer from the lifecycle within ${waitMs} ms; it goes on: retry with the same Idempotency-Key`,
          ),
        ),
      waitMs,
    );
  });
  // The abandoned call's own failure, if it comes later, is the retry's to see.
  answer.catch(() => undefined);
  try {
    return await Promise.race([answer, pending]);
  } finally {
    clearTimeout(timer);
  }
}
