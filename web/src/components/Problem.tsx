/** A failure, said in the page: what went wrong and, where there is one, what to do about it. */
import type { ComponentChildren } from 'preact';
import { ApiError } from '../api.js';

export function Problem({
  title,
  children,
  onRetry,
}: {
  title: string;
  children?: ComponentChildren;
  /** Ask again: a Retry button in the panel. */
  onRetry?: () => void;
}) {
  return (
    <div class="problem" role="alert">
      <strong>{title}</strong>
      {children !== undefined && <div>{children}</div>}
      {onRetry && (
        <button type="button" class="retry" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

const TITLES: Record<ApiError['kind'], string> = {
  'not-found': 'Not found',
  refused: 'The server refused the request',
  server: 'The server could not answer',
  down: 'The server cannot be reached',
  timeout: 'Time limit reached',
};

/** An error of a request for `what` (e.g. "this node"), in words. */
export function ErrorMessage({
  error,
  what,
  onRetry,
}: {
  error: Error;
  what?: string;
  onRetry?: () => void;
}) {
  if (error instanceof ApiError) {
    const title = error.kind === 'not-found' && what ? `Not found: ${what}` : TITLES[error.kind];
    // Asking again for what is not there gives the same answer: no Retry for a 404 or a refused request.
    const retry = error.kind === 'not-found' || error.kind === 'refused' ? undefined : onRetry;
    return (
      <Problem title={title} onRetry={retry}>
        {error.message}
      </Problem>
    );
  }
  return (
    <Problem title="Something went wrong" onRetry={onRetry}>
      {error.message}
    </Problem>
  );
}
