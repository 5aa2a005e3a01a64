/** A failure, said in the page: what went wrong and, where there is one, what to do about it. */
import type { ComponentChildren } from 'preact';
import { ApiError } from '../api.js';

export function Problem({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="problem" role="alert">
      <strong>{title}</strong>
      {children !== undefined && <div>{children}</div>}
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
export function ErrorMessage({ error, what }: { error: Error; what?: string }) {
  if (error instanceof ApiError) {
    const title = error.kind === 'not-found' && what ? `Not found: ${what}` : TITLES[error.kind];
    return <Problem title={title}>{error.message}</Problem>;
  }
  return <Problem title="Something went wrong">{error.message}</Problem>;
}
