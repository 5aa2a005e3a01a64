/** A loading indicator that says how long it has waited; the request itself ends in an answer or an error. */
import { useEffect, useState } from 'preact/hooks';

export function Loading({ what = 'Loading' }: { what?: string }) {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setSeconds((s) => s + 1), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {what}…{seconds >= 3 ? ` still waiting for the server (${seconds} s)` : ''}
    </p>
  );
}
