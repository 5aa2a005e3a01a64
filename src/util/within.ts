/** How a promise ended within a time limit: its value, its error, or undefined when it had not settled. */
export type Outcome<T> = { value: T } | { error: unknown } | undefined;

/** Waits for `promise` at most `ms`; the promise goes on running past that, its end no longer awaited. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<Outcome<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
