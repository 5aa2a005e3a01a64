/**
 * A StructureData node as an OPTIMADE `structures` entry: what the specification's properties say of AiiDA's
 * cell, periodicity, kinds and sites. AiiDA's kinds are OPTIMADE's species (an alloy kind has several symbols,
 * a kind whose weights sum to less than one is partly vacant); a kind's mass is kept where it belongs to one
 * element (an alloy's mass is an average AiiDA computed, not a mass per element, so it is left out).
 */
import {
  dimensionality,
  formula,
  hasVacancies,
  structureFormula,
  structureFromAttributes,
  type Kind,
  type Structure,
} from '../domain/structure.js';

/** What the side table keeps of a node besides its attributes. */
export interface StructureNode {
  pk: number;
  uuid: string;
  label: string;
  /** The node's mtime, as the database stores it (UTC). */
  mtime: string;
  attributes: Record<string, unknown>;
  /** The UUID of the calculation that created it, if one did. */
  creator: string | null;
}

export interface Species {
  name: string;
  chemical_symbols: string[];
  concentration: number[];
  mass?: number[];
}

/** Every OPTIMADE property Quarry serves for a structure, except the `_quarry_` links, which need a URL. */
export interface StructureProperties {
  immutable_id: string;
  last_modified: string;
  elements: string[];
  nelements: number;
  elements_ratios: number[];
  chemical_formula_descriptive: string;
  chemical_formula_reduced: string;
  chemical_formula_hill: string | null;
  chemical_formula_anonymous: string;
  dimension_types: number[];
  nperiodic_dimensions: number;
  lattice_vectors: number[][];
  cartesian_site_positions: number[][];
  /** Null where the cell has no inverse (three vectors in a plane). */
  fractional_site_positions: number[][] | null;
  site_coordinate_span: 'unit_cell';
  nsites: number;
  species_at_sites: string[];
  species: Species[];
  structure_features: string[];
  _quarry_pk: number;
  _quarry_label: string;
  _quarry_creator: string | null;
}

const WEIGHT_TOLERANCE = 1e-6;
/** Partial occupations are written with integers this many times their share at most, then reduced. */
const MAX_SCALE = 100;

export function structureProperties(node: StructureNode): StructureProperties {
  const given = structureFromAttributes(node.attributes);
  // The elements and formulas name chemical elements only (the specification's `elements`: no "X", no
  // vacancies); the species keep the dummy "X" (KKR's empty spheres), which chemical_symbols allows.
  const structure = chemicalPart(given);
  const kinds = new Map(structure.kinds.map((k) => [k.name, k]));
  const occupation = elementOccupation(structure, kinds);
  const elements = [...occupation.keys()].sort(byCodePoint);
  const total = elements.reduce((sum, e) => sum + occupation.get(e)!, 0);
  const counts = integerCounts(elements.map((e) => occupation.get(e)!));
  const species = given.kinds.map(speciesOf);
  const disorder = species.some((s) => s.chemical_symbols.length > 1);
  const dimension = structure.pbc.map((p) => (p ? 1 : 0));
  return {
    immutable_id: node.uuid,
    last_modified: rfc3339(node.mtime),
    elements,
    nelements: elements.length,
    elements_ratios: elements.map((e) => occupation.get(e)! / total),
    chemical_formula_descriptive: structureFormula(structure, 'hill'),
    chemical_formula_reduced: elements.map((e, i) => withCount(e, counts[i]!)).join(''),
    chemical_formula_hill: disorder ? null : formula(siteSymbols(structure, kinds), 'hill'),
    chemical_formula_anonymous: anonymousFormula(counts),
    dimension_types: dimension,
    nperiodic_dimensions: dimensionality(structure).dim,
    lattice_vectors: given.cell,
    cartesian_site_positions: given.sites.map((s) => s.position),
    fractional_site_positions: fractionalPositions(
      given.cell,
      given.sites.map((s) => s.position),
    ),
    site_coordinate_span: 'unit_cell',
    nsites: given.sites.length,
    species_at_sites: given.sites.map((s) => s.kind_name),
    species,
    structure_features: disorder ? ['disorder'] : [],
    _quarry_pk: node.pk,
    _quarry_label: node.label,
    _quarry_creator: node.creator,
  };
}

/**
 * The entry of a node, or undefined for one whose attributes are not a structure AiiDA could have stored (a kind
 * without weights, sites that are not lists): such a node is left out, not allowed to stop the whole table.
 */
export function entryOf(node: StructureNode): StructureProperties | undefined {
  try {
    const entry = structureProperties(node);
    return entry.elements_ratios.every(Number.isFinite) ? entry : undefined;
  } catch {
    return undefined;
  }
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Cartesian positions in fractions of the cell's vectors (rows): p = f · cell, so f = p · cell⁻¹. Null for a
 * cell without an inverse.
 */
export function fractionalPositions(cell: number[][], positions: number[][]): number[][] | null {
  const [a, b, c] = cell as [number[], number[], number[]];
  const cross = (u: number[], v: number[]) => [
    u[1]! * v[2]! - u[2]! * v[1]!,
    u[2]! * v[0]! - u[0]! * v[2]!,
    u[0]! * v[1]! - u[1]! * v[0]!,
  ];
  const bc = cross(b, c);
  const volume = a[0]! * bc[0]! + a[1]! * bc[1]! + a[2]! * bc[2]!;
  if (!Number.isFinite(volume) || Math.abs(volume) < 1e-12) return null;
  // The columns of cell⁻¹ are the reciprocal vectors b×c, c×a, a×b over the volume.
  const reciprocal = [bc, cross(c, a), cross(a, b)];
  return positions.map((p) =>
    reciprocal.map((r) => (p[0]! * r[0]! + p[1]! * r[1]! + p[2]! * r[2]!) / volume),
  );
}

/**
 * The structure without what is no chemical element: the dummy symbol `X` and symbols of weight 0 (KKR writes a
 * vacancy as a kind `H` of weight 0) leave their kinds, and sites of kinds left with no symbol go.
 */
function chemicalPart(structure: Structure): Structure {
  const chemical = (symbol: string, weight: number | undefined) =>
    symbol !== 'X' && (weight ?? 0) > WEIGHT_TOLERANCE;
  const kinds = structure.kinds.map((k) => {
    const keep = k.symbols.map((s, i) => chemical(s, k.weights[i]));
    if (keep.every(Boolean)) return k;
    const kind: Kind = {
      name: k.name,
      symbols: k.symbols.filter((_, i) => keep[i]),
      weights: k.weights.filter((_, i) => keep[i]),
    };
    if (k.mass !== undefined) kind.mass = k.mass;
    return kind;
  });
  const empty = new Set(kinds.filter((k) => k.symbols.length === 0).map((k) => k.name));
  return {
    ...structure,
    kinds: kinds.filter((k) => !empty.has(k.name)),
    sites: structure.sites.filter((s) => !empty.has(s.kind_name)),
  };
}

/** How many atoms of each element the cell holds: a site of an alloy kind counts its weights. */
function elementOccupation(structure: Structure, kinds: Map<string, Kind>): Map<string, number> {
  const occupation = new Map<string, number>();
  for (const site of structure.sites) {
    const kind = kinds.get(site.kind_name);
    const symbols = kind?.symbols ?? [site.kind_name];
    const weights = kind?.weights ?? [1];
    symbols.forEach((s, i) => occupation.set(s, (occupation.get(s) ?? 0) + (weights[i] ?? 0)));
  }
  return occupation;
}

/** Each site's element, for a structure whose kinds are all one element each. */
function siteSymbols(structure: Structure, kinds: Map<string, Kind>): string[] {
  return structure.sites.map((s) => kinds.get(s.kind_name)?.symbols[0] ?? s.kind_name);
}

/** A kind as a species; a symbol of weight 0 (KKR's vacancy `H` of weight 0) is no part of it, only its vacancy. */
function speciesOf(kind: Kind): Species {
  const present = kind.symbols.map((_, i) => (kind.weights[i] ?? 0) > WEIGHT_TOLERANCE);
  const symbols = kind.symbols.filter((_, i) => present[i]);
  const concentration = kind.weights.filter((_, i) => present[i]);
  const vacant = hasVacancies(kind);
  if (vacant) {
    symbols.push('vacancy');
    concentration.push(1 - kind.weights.reduce((a, b) => a + b, 0));
  }
  const species: Species = { name: kind.name, chemical_symbols: symbols, concentration };
  // Masses are the kind's element's (vacancies weigh 0): left out for an alloy, whose mass is an average.
  if (kind.mass !== undefined && kind.symbols.length === 1)
    species.mass = symbols.map((s) => (s === 'vacancy' ? 0 : kind.mass!));
  return species;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * The smallest integers in the proportions of `occupations`: exact for whole atoms; for partial occupations
 * the first multiple (up to MAX_SCALE) that makes them whole, rounded after that.
 */
function integerCounts(occupations: number[]): number[] {
  if (occupations.length === 0) return [];
  let scale = 1;
  while (
    scale < MAX_SCALE &&
    occupations.some((o) => Math.abs(o * scale - Math.round(o * scale)) > WEIGHT_TOLERANCE * scale)
  )
    scale += 1;
  const whole = occupations.map((o) => Math.max(1, Math.round(o * scale)));
  const divisor = whole.reduce(gcd);
  return whole.map((n) => n / divisor);
}

const withCount = (symbol: string, n: number) => (n === 1 ? symbol : `${symbol}${n}`);

/** A, B, ..., Z, Aa, Ba, ..., Za, Ab, ...: the specification's anonymous symbols. */
function anonymousSymbol(index: number): string {
  const letter = String.fromCharCode(65 + (index % 26));
  const round = Math.floor(index / 26);
  return round === 0 ? letter : letter + anonymousSuffix(round - 1);
}

function anonymousSuffix(n: number): string {
  const letter = String.fromCharCode(97 + (n % 26));
  return n < 26 ? letter : letter + anonymousSuffix(Math.floor(n / 26) - 1);
}

function anonymousFormula(counts: number[]): string {
  return [...counts]
    .sort((a, b) => b - a)
    .map((n, i) => withCount(anonymousSymbol(i), n))
    .join('');
}

/**
 * Stored datetime text (`2019-10-08 14:02:17.393618`, naive UTC or with an offset) as RFC 3339, always with
 * microseconds: PostgreSQL writes `.40719` where SQLite keeps `.407190`, and the same data reads the same.
 */
export function rfc3339(stored: string): string {
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(stored);
  if (!m) return new Date(stored).toISOString();
  const zone =
    m[4] === undefined || /^[+-]00(:?00)?$/.test(m[4]) ? 'Z' : m[4].length === 3 ? `${m[4]}:00` : m[4];
  return `${m[1]}T${m[2]}${(m[3] ?? '.').padEnd(7, '0').slice(0, 7)}${zone}`;
}
