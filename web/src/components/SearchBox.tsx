/**
 * The box that searches every source (the server's `GET /search/`): on the portal's root and on every page of a
 * source. A switch narrows it to the source shown; the answer is the search page (`/search?q=...`), a link.
 */
import { useState } from 'preact/hooks';
import { useExplorer } from '../context.js';
import { searchQuery, type SearchState } from '../search-state.js';

interface Props {
  /** The element ids' prefix: the page may hold two boxes (the header's and the root page's). */
  id: string;
  /** The search shown now (the search page's), which the box starts from. */
  current?: SearchState;
  /** The source the explorer shows, which the switch narrows the search to. */
  source?: string;
  class?: string;
}

export function SearchBox({ id, current, source, class: className }: Props) {
  const { navigate, root, params } = useExplorer();
  const [text, setText] = useState(current?.q ?? '');
  const narrowedNow = source !== undefined && current?.sources.length === 1 && current.sources[0] === source;
  const [narrow, setNarrow] = useState(narrowedNow);

  const submit = (event: Event) => {
    event.preventDefault();
    const q = text.trim();
    // A new text keeps the facets chosen on the search page; the switch decides the sources.
    const base: SearchState = current ?? { elements: [], sources: [], page: 1 };
    const sources = narrow && source !== undefined ? [source] : narrowedNow ? [] : base.sources;
    const next: SearchState = { ...base, q: q === '' ? undefined : q, sources, page: 1 };
    navigate(`${root}/search?${searchQuery(next, params)}`);
  };

  return (
    <form
      class={`search search-all ${className ?? ''}`}
      role="search"
      aria-label="Every source"
      onSubmit={submit}
    >
      <label for={`${id}-q`} class="visually-hidden">
        Search every source
      </label>
      <input
        id={`${id}-q`}
        type="search"
        name="q"
        value={text}
        placeholder="Search every source: UUID, label, formula (GaAs)"
        onInput={(event) => setText((event.currentTarget as HTMLInputElement).value)}
      />
      {source !== undefined && (
        <label class="narrow">
          <input
            type="checkbox"
            checked={narrow}
            onChange={(event) => setNarrow((event.currentTarget as HTMLInputElement).checked)}
          />{' '}
          only {source}
        </label>
      )}
      <button type="submit">Search</button>
    </form>
  );
}
