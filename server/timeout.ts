/**
 * `promise`, or a rejection with `timeoutError()` once `ms` passed (`promise` then settles
 * unheard). The timer is cleared as soon as either settles; with `unref` it keeps no process
 * alive by itself.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, timeoutError: () => Error, opts: { unref?: boolean } = {}): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError()), ms);
    if (opts.unref) timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
