/**
 * A view's state kept in the address (`?file=…`, `?supercell=2x2x1`), so that a reload or a shared link shows the
 * same: read from the URL's parameters, written back in place (history replaced, not pushed: a zoom or a
 * preview is not a page to go back to).
 */
import { useExplorer } from './context.js';

/**
 * The value of parameter `name`, and a setter (undefined or '' removes it). `hash` (a part's anchor, such as
 * `files`) is set with it, so that the folded part holding the state opens again on reload.
 */
export function useUrlParam(
  name: string | undefined,
  hash?: string,
): [string | undefined, (value: string | undefined) => void] {
  const { params, navigate } = useExplorer();
  const value = name === undefined ? undefined : (params.get(name) ?? undefined);
  const set = (next: string | undefined) => {
    if (name === undefined) return;
    const url = new URL(window.location.href);
    if (next === undefined || next === '') url.searchParams.delete(name);
    else url.searchParams.set(name, next);
    if (hash !== undefined && next !== undefined && next !== '') url.hash = hash;
    navigate(`${url.pathname}${url.search}${url.hash}`, { replace: true });
  };
  return [value, set];
}
