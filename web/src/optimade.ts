/**
 * Structures by chemistry, through the source's OPTIMADE endpoint (served beside its v4 API): a search such as
 * `SiO2` or `Si O` becomes an OPTIMADE filter on the formulas or elements the server indexes.
 */
import type { Api } from './api.js';
import { optimadeBase } from './optimade-base.js';

const SYMBOLS = new Set(
  (
    'H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr Y ' +
    'Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re ' +
    'Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf Db Sg Bh Hs Mt Ds Rg ' +
    'Cn Nh Fl Mc Lv Ts Og'
  ).split(' '),
);

export interface ChemicalQuery {
  kind: 'formula' | 'elements';
  /** The OPTIMADE filter that finds the structures. */
  filter: string;
  /** What is looked for, in words. */
  words: string;
  /** For a formula: its Hill form, which the exact matches have. */
  hill?: string;
}

const quote = (s: string) => `"${s}"`;

function hill(counts: Map<string, number>): string {
  const names = [...counts.keys()].sort();
  const first = counts.has('C') ? ['C', ...(counts.has('H') ? ['H'] : [])] : [];
  return [...first, ...names.filter((n) => !first.includes(n))]
    .map((n) => (counts.get(n) === 1 ? n : `${n}${counts.get(n)}`))
    .join('');
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * A search text as chemistry, or undefined: space-separated symbols (`Si O`, `Fe`) ask for structures with all
 * of these elements; a formula (`Si2`, `SiO2`) for those of that composition, the exact formula first.
 */
export function chemicalQuery(input: string): ChemicalQuery | undefined {
  const text = input.trim();
  if (text === '' || text.length > 200) return undefined;
  const words = text.split(/\s+/);
  if (words.every((w) => SYMBOLS.has(w))) {
    const elements = [...new Set(words)].sort();
    return {
      kind: 'elements',
      filter: `elements HAS ALL ${elements.map(quote).join(',')}`,
      words: `with ${elements.join(', ')}`,
    };
  }
  if (words.length !== 1 || !/^([A-Z][a-z]?\d*)+$/.test(text)) return undefined;
  const counts = new Map<string, number>();
  for (const [, symbol, count] of text.matchAll(/([A-Z][a-z]?)(\d*)/g)) {
    if (!SYMBOLS.has(symbol!)) return undefined;
    const n = count === '' ? 1 : Number(count);
    if (n === 0 || n > 100_000) return undefined;
    counts.set(symbol!, (counts.get(symbol!) ?? 0) + n);
  }
  const divisor = [...counts.values()].reduce(gcd);
  const reduced = [...counts.keys()]
    .sort()
    .map((s) => {
      const n = counts.get(s)! / divisor;
      return n === 1 ? s : `${s}${n}`;
    })
    .join('');
  const exact = hill(counts);
  return {
    kind: 'formula',
    filter: `chemical_formula_hill=${quote(exact)} OR chemical_formula_descriptive=${quote(exact)} OR chemical_formula_reduced=${quote(reduced)}`,
    words: `of composition ${reduced}`,
    hill: exact,
  };
}

export interface FoundStructure {
  uuid: string;
  formula: string;
  label: string;
  pk?: number;
  nsites?: number;
}

export interface FoundStructures {
  structures: FoundStructure[];
  total?: number;
  url: string;
}

const FIELDS = 'chemical_formula_hill,chemical_formula_descriptive,nsites,_quarry_pk,_quarry_label';

/** The structures a chemical query finds (the first `limit`), exact formulas first; an error in plain words. */
export async function findStructures(
  api: Api,
  root: string,
  query: ChemicalQuery,
  limit: number,
  signal?: AbortSignal,
): Promise<FoundStructures> {
  const url = `${optimadeBase(api, root)}/structures?filter=${encodeURIComponent(query.filter)}&page_limit=${limit}&sort=nsites&response_fields=${FIELDS}`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: 'application/vnd.api+json' }, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new Error(`The OPTIMADE endpoint could not be reached: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => undefined)) as
    | {
        data?: { id: string; attributes: Record<string, unknown> }[];
        meta?: { data_returned?: number };
        errors?: { detail?: string; title?: string }[];
      }
    | undefined;
  if (!response.ok || body?.data === undefined) {
    const said = body?.errors?.[0]?.detail ?? body?.errors?.[0]?.title ?? response.statusText;
    throw new Error(`${response.status}: ${said || 'not an OPTIMADE answer'}`);
  }
  const structures = body.data.map((entry): FoundStructure => {
    const a = entry.attributes;
    const formula = String(a.chemical_formula_hill ?? a.chemical_formula_descriptive ?? '');
    return {
      uuid: entry.id,
      formula,
      label: typeof a._quarry_label === 'string' ? a._quarry_label : '',
      pk: typeof a._quarry_pk === 'number' ? a._quarry_pk : undefined,
      nsites: typeof a.nsites === 'number' ? a.nsites : undefined,
    };
  });
  // Exact formulas first, then by size: what was typed leads, the rest of the composition follows.
  if (query.hill !== undefined) {
    const rank = (s: FoundStructure) => (s.formula === query.hill ? 0 : 1);
    structures.sort((a, b) => rank(a) - rank(b) || (a.nsites ?? 0) - (b.nsites ?? 0));
  }
  return { structures, total: body.meta?.data_returned, url };
}

/**
 * The OPTIMADE filter of the node list's chemistry filters (all of them together), or undefined for none or a
 * formula that is not one.
 */
export function chemistryFilter(filters: {
  elements?: string[];
  nelements?: number;
  formula?: string;
}): string | undefined {
  const parts: string[] = [];
  if (filters.elements !== undefined)
    parts.push(
      `elements HAS ALL ${filters.elements
        .filter((e) => SYMBOLS.has(e))
        .map(quote)
        .join(',')}`,
    );
  if (filters.nelements !== undefined) parts.push(`nelements=${filters.nelements}`);
  if (filters.formula !== undefined) {
    const query = chemicalQuery(filters.formula);
    if (query?.kind !== 'formula') return undefined;
    parts.push(`(${query.filter})`);
  }
  return parts.length === 0 ? undefined : parts.join(' AND ');
}

/** The pks of the structures an OPTIMADE filter finds (the first `limit`, smallest first) and how many there are. */
export async function structurePks(
  api: Api,
  root: string,
  filter: string,
  limit: number,
  signal?: AbortSignal,
): Promise<{ pks: number[]; total?: number; url: string }> {
  const found = await findStructures(api, root, { kind: 'elements', filter, words: '' }, limit, signal);
  return {
    pks: found.structures.flatMap((s) => (s.pk === undefined ? [] : [s.pk])),
    total: found.total,
    url: found.url,
  };
}
