/**
 * The formulas of the structures and CIFs among a list's rows: one more request per list page (only when the
 * page has such nodes), for the few attributes a formula needs. A failure leaves the list as it is.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { FORMULA_ATTRIBUTES, formulaOf, hasFormula } from '../chemistry.js';
import { useExplorer } from '../context.js';
import { optimadeBase, servesOptimade } from '../optimade-base.js';

/**
 * The formulas of CIFs as every list and page shows them: the content of the unit cell in Hill order (`Si8`),
 * as for a structure, from the source's OPTIMADE endpoint, which reads the files; one request for a page's CIFs.
 */
async function cifCellFormulas(
  api: Api,
  root: string,
  cifs: { id: number; uuid: string }[],
  signal: AbortSignal,
): Promise<Map<number, string>> {
  const filter = cifs.map((c) => `id="${c.uuid}"`).join(' OR ');
  const url = `${optimadeBase(api, root)}/structures?filter=${encodeURIComponent(filter)}&page_limit=${cifs.length}&response_fields=chemical_formula_hill`;
  const response = await fetch(url, { headers: { Accept: 'application/vnd.api+json' }, signal });
  if (!response.ok) return new Map();
  const body = (await response.json()) as { data?: { id: string; attributes: Record<string, unknown> }[] };
  const found = new Map<number, string>();
  for (const entry of body.data ?? []) {
    const cif = cifs.find((c) => c.uuid === entry.id);
    const formula = entry.attributes.chemical_formula_hill;
    if (cif !== undefined && typeof formula === 'string' && formula !== '') found.set(cif.id, formula);
  }
  return found;
}

export function useFormulas(
  api: Api,
  nodes: { id: number; uuid: string; node_type: string }[],
): Map<number, string> {
  const { root } = useExplorer();
  const [formulas, setFormulas] = useState<Map<number, string>>(new Map());
  const shown = nodes.filter((n) => hasFormula(n.node_type));
  const ids = [...new Set(shown.map((n) => n.id))];
  const key = ids.join(',');
  useEffect(() => {
    if (ids.length === 0) return;
    const controller = new AbortController();
    // Another server's API (`?api=`) has no OPTIMADE endpoint this explorer knows of: its CIFs show the formula
    // their file writes, in Hill order.
    const cifs = servesOptimade(api) ? shown.filter((n) => n.node_type.startsWith('data.core.cif.')) : [];
    const cells =
      cifs.length === 0
        ? Promise.resolve(new Map<number, string>())
        : cifCellFormulas(api, root, cifs, controller.signal).catch(() => new Map<number, string>());
    api
      .get<{ nodes: { id: number; attributes?: Record<string, unknown> }[] }>(
        '/nodes/',
        // `in` takes a list of two or more (a single value is the v4 language's plain equality).
        `${ids.length === 1 ? `id=${key}` : `id=in=${key}`}&limit=${ids.length}&attributes=true&attributes_filter=${FORMULA_ATTRIBUTES.join(',')}`,
        { signal: controller.signal },
      )
      .then(
        (answer) => {
          const found = new Map<number, string>();
          for (const n of answer.data.nodes) {
            const formula = formulaOf(n.attributes);
            if (formula !== undefined) found.set(n.id, formula);
          }
          return cells.then((cell) => {
            if (!controller.signal.aborted) setFormulas(new Map([...found, ...cell]));
          });
        },
        () => undefined,
      );
    return () => controller.abort();
  }, [api, root, key]);
  return formulas;
}

/**
 * The formulas of the structures the band structures among a list's rows were computed for: the structure input
 * of the process that created each (one querybuilder request per list page, only when it has band structures).
 */
export function useBandsFormulas(api: Api, nodes: { id: number; node_type: string }[]): Map<number, string> {
  const [formulas, setFormulas] = useState<Map<number, string>>(new Map());
  const ids = [
    ...new Set(nodes.filter((n) => n.node_type.startsWith('data.core.array.bands.')).map((n) => n.id)),
  ];
  const key = ids.join(',');
  useEffect(() => {
    if (ids.length === 0) return;
    const controller = new AbortController();
    api
      .query<{ b?: { id: number }[]; s?: Record<string, unknown>[] }>(
        {
          path: [
            {
              entity_type: 'data.core.array.bands.BandsData.',
              orm_base: 'node',
              tag: 'b',
              subclassing: true,
            },
            {
              entity_type: 'process.ProcessNode.',
              orm_base: 'node',
              tag: 'c',
              subclassing: true,
              with_outgoing: 'b',
            },
            {
              entity_type: 'data.core.structure.StructureData.',
              orm_base: 'node',
              tag: 's',
              with_outgoing: 'c',
            },
          ],
          filters: { b: { id: { in: ids } } },
          project: { b: ['id'], s: ['attributes.kinds', 'attributes.sites'] },
          limit: ids.length * 4,
        },
        { signal: controller.signal },
      )
      .then(
        (answer) => {
          const found = new Map<number, string>();
          const bands = answer.data.b ?? [];
          const structures = answer.data.s ?? [];
          bands.forEach((b, i) => {
            const s = structures[i];
            const formula = formulaOf({ kinds: s?.['attributes.kinds'], sites: s?.['attributes.sites'] });
            if (formula !== undefined && !found.has(b.id)) found.set(b.id, formula);
          });
          setFormulas(found);
        },
        () => undefined,
      );
    return () => controller.abort();
  }, [api, key]);
  return formulas;
}
