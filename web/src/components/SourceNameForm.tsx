/**
 * The "Find a source" form of the lists of sources (the portal's table and the index of `GET /sources/`): what
 * is typed is only applied on submit, trimmed, so that a list filtered on the server is asked once per search.
 */
import { useState } from 'preact/hooks';

export function SourceNameForm({ label, onFind }: { label?: string; onFind: (name: string) => void }) {
  const [typed, setTyped] = useState('');
  return (
    <form
      class="search"
      role="search"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        onFind(typed.trim());
      }}
    >
      <label for="source-filter">Find a source</label>
      <input
        id="source-filter"
        type="search"
        value={typed}
        placeholder="part of its name"
        onInput={(event) => setTyped((event.currentTarget as HTMLInputElement).value)}
      />
      <button type="submit">Find</button>
    </form>
  );
}
