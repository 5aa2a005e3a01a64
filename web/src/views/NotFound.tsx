/** What a reader sees when what they asked for is not there: a heading, plain words, and a way on. */
import type { ComponentChildren } from 'preact';
import { Link } from '../components/Link.js';
import { Search } from './Home.js';

export function NotFound({ children }: { children: ComponentChildren }) {
  return (
    <section class="not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Not found</h1>
      <p role="status">{children}</p>
      <p>
        Search for it by its UUID (or the start of it), its pk or its label, or go to the{' '}
        <Link path="/">home page</Link>.
      </p>
      <Search />
    </section>
  );
}
