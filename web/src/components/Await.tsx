/** Render a loaded value, its loading state or its error, so that no view is ever blank or endless. */
import type { ComponentChildren } from 'preact';
import type { Loaded } from '../hooks.js';
import { ErrorMessage } from './Problem.js';
import { Loading } from './Loading.js';

interface Props<T> {
  loaded: Loaded<T>;
  /** What is loaded, for the messages ("this node"). */
  what?: string;
  children: (data: T) => ComponentChildren;
}

export function Await<T>({ loaded, what, children }: Props<T>) {
  if (loaded.state === 'loading') return <Loading what={what ? `Loading ${what}` : 'Loading'} />;
  if (loaded.state === 'error')
    return <ErrorMessage error={loaded.error} what={what} onRetry={loaded.retry} />;
  return <>{children(loaded.data)}</>;
}
