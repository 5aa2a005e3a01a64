/**
 * The OPTIMADE entry of a structure or CIF file on its node page. Every StructureData has one; a CifData has one
 * only where its file reads into sites (partly occupied sites, for one, are left out), so its link is shown once
 * the server says the entry is there.
 */
import { useEffect, useState } from 'preact/hooks';

export function OptimadeEntry({ href, known }: { href: string; known: boolean }) {
  const [there, setThere] = useState(known);
  useEffect(() => {
    if (known) return;
    const stop = new AbortController();
    fetch(`${href}?response_fields=id`, { signal: stop.signal }).then(
      (answer) => setThere(answer.ok),
      () => undefined,
    );
    return () => stop.abort();
  }, [href, known]);
  if (!there) return null;
  return (
    <>
      <dt>OPTIMADE</dt>
      <dd>
        <a href={href} data-field="optimade">
          this structure's OPTIMADE entry
        </a>
      </dd>
    </>
  );
}
