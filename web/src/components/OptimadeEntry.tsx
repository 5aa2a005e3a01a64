/**
 * The OPTIMADE entry of a structure or CIF file on its node page. Every StructureData has one; a CifData has one
 * only where its file reads into sites (partly occupied sites, for one, are left out), so its link is shown once
 * the server says the entry is there.
 */
import { useLoad } from '../hooks.js';

export function OptimadeEntry({ href, known }: { href: string; known: boolean }) {
  const asked = useLoad(
    async (signal) => known || (await fetch(`${href}?response_fields=id`, { signal })).ok,
    [href, known],
  );
  if (asked.state !== 'ok' || !asked.data) return null;
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
