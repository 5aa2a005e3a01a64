/** A component loaded on demand (its own chunk), with a loading state and its failure said in the page. */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorMessage } from './Problem.js';
import { Loading } from './Loading.js';

export function Lazy<P extends object>({
  load,
  props,
  what,
}: {
  load: () => Promise<{ default: ComponentType<P> }>;
  props: P;
  what: string;
}) {
  const [state, setState] = useState<{ component?: ComponentType<P>; error?: Error }>({});
  useEffect(() => {
    let live = true;
    setState({});
    load().then(
      (module) => live && setState({ component: module.default }),
      (error: unknown) =>
        live && setState({ error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return () => {
      live = false;
    };
  }, [load]);
  if (state.error) return <ErrorMessage error={state.error} what={what} />;
  if (!state.component) return <Loading what={`Loading ${what}`} />;
  const Component = state.component;
  return <Component {...props} />;
}
