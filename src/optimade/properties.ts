/**
 * The properties of a `structures` entry as Quarry serves them: what `/info/structures` says of each, and how
 * a filter or a sort reaches it in the side table (side-table.ts).
 */

export type PropertyType = 'string' | 'integer' | 'float' | 'boolean' | 'timestamp' | 'list' | 'dictionary';

export interface PropertyInfo {
  description: string;
  type: PropertyType;
  /** The type of a list's items, for filters on it. */
  itemType?: 'string' | 'integer' | 'float';
  unit?: string;
  /** Default answer includes it (no `response_fields`). */
  default: boolean;
  /** The side table column a filter or sort reads; none: the property can be returned, not queried. */
  column?: string;
  /** Its values can be ordered (a scalar column). */
  sortable: boolean;
  /** May be null: IS UNKNOWN can match. */
  nullable?: boolean;
  /**
   * Added to the specification in 1.2 or 1.3: served, filtered and sorted as the others, but not described in
   * `/info/structures`, where the community's validator (optimade-python-tools 0.25, written for 1.1) takes an
   * unprefixed name it does not know for an error. The specification requires only prefixed properties there.
   */
  since12?: boolean;
  /** For a nullable property without a column: the column that is null exactly where it is. */
  knownWith?: string;
  /** The column holds this SQL expression rather than a column of `s` (a constant such as `'structures'`). */
  constant?: boolean;
}

/** Quarry's database-provider prefix, as `_quarry_label`. */
export const PREFIX = 'quarry';

const scalar = (
  description: string,
  type: PropertyType,
  column: string,
  extra: Partial<PropertyInfo> = {},
): PropertyInfo => ({ description, type, column, sortable: true, default: true, ...extra });

const list = (
  description: string,
  itemType: 'string' | 'integer' | 'float',
  column: string | undefined,
  extra: Partial<PropertyInfo> = {},
): PropertyInfo => ({
  description,
  type: 'list',
  itemType,
  column,
  sortable: false,
  default: true,
  ...extra,
});

export const STRUCTURE_PROPERTIES: Record<string, PropertyInfo> = {
  id: scalar("The entry's ID: the UUID of the AiiDA StructureData node.", 'string', 'uuid'),
  type: {
    description: 'The entry type: always "structures".',
    type: 'string',
    sortable: false,
    default: true,
    column: "'structures'",
    constant: true,
  },
  immutable_id: scalar('The UUID of the AiiDA node, which never changes.', 'string', 'uuid'),
  last_modified: scalar('When the node was last modified (its mtime).', 'timestamp', 'last_modified'),
  elements: list(
    'The chemical symbols of the elements of the structure, in alphabetical order.',
    'string',
    'elements',
  ),
  nelements: scalar('The number of different elements.', 'integer', 'nelements'),
  elements_ratios: list(
    'The share of each element of `elements` among the atoms of the cell (partly occupied sites count their weights).',
    'float',
    'elements_ratios',
  ),
  chemical_formula_descriptive: scalar(
    "The formula AiiDA gives the structure (get_formula in Hill mode, alloy kinds in braces): the v4 API's derived_properties.formula.",
    'string',
    'chemical_formula_descriptive',
  ),
  chemical_formula_reduced: scalar(
    'Elements in alphabetical order with the smallest integer proportions (partial occupations rounded after scaling by up to 100).',
    'string',
    'chemical_formula_reduced',
  ),
  chemical_formula_hill: scalar(
    "The cell's formula in Hill order, unreduced; null for a disordered structure.",
    'string',
    'chemical_formula_hill',
    { nullable: true },
  ),
  chemical_formula_anonymous: scalar(
    'The reduced formula with elements ordered by proportion and named A, B, C, ...',
    'string',
    'chemical_formula_anonymous',
  ),
  dimension_types: list(
    "1 for each periodic direction of the cell (AiiDA's pbc), 0 otherwise.",
    'integer',
    'dimension_types',
  ),
  nperiodic_dimensions: scalar('The number of periodic directions.', 'integer', 'nperiodic_dimensions'),
  lattice_vectors: list("The three cell vectors (AiiDA's cell).", 'float', undefined, { unit: 'Å' }),
  cartesian_site_positions: list('The Cartesian position of each site.', 'float', undefined, { unit: 'Å' }),
  fractional_site_positions: list(
    'The position of each site in fractions of the lattice vectors (the Cartesian positions times the inverse cell).',
    'float',
    undefined,
    { since12: true },
  ),
  site_coordinate_span: {
    description: 'Always "unit_cell": the sites are one whole cell, repeated by the lattice vectors.',
    type: 'string',
    sortable: false,
    default: true,
    column: "'unit_cell'",
    constant: true,
    since12: true,
  },
  nsites: scalar('The number of sites.', 'integer', 'nsites'),
  species_at_sites: list('The species (AiiDA kind name) of each site.', 'string', 'species_at_sites'),
  species: {
    description:
      "The species: one per AiiDA kind, with its symbols, weights as concentrations, a vacancy where the weights sum to less than one, and the kind's mass where the kind is one element.",
    type: 'list',
    sortable: false,
    default: true,
  },
  structure_features: list(
    '"disorder" where a kind mixes elements or vacancies; empty otherwise.',
    'string',
    'structure_features',
  ),
  space_group_it_number: scalar(
    'The space group number (1-230), found by moyo at a distance tolerance of 1e-3 Å from the cell, the sites and the kinds; null where the structure is not periodic in three dimensions, has partly occupied or mixed sites, or no group was found.',
    'integer',
    'space_group_it_number',
    { since12: true, nullable: true },
  ),
  space_group_symbol_hermann_mauguin: scalar(
    'The short Hermann-Mauguin symbol of the space group (such as "F d -3 m"); null where space_group_it_number is.',
    'string',
    'space_group_symbol_hermann_mauguin',
    { since12: true, nullable: true },
  ),
  space_group_symbol_hall: scalar(
    "The Hall symbol of the space group's standard setting as moyo identifies it; null where space_group_it_number is.",
    'string',
    'space_group_symbol_hall',
    { since12: true, nullable: true },
  ),
  space_group_symmetry_operations_xyz: list(
    "The space group's operations on fractional_site_positions (in this structure's own cell), as x,y,z strings; null where space_group_it_number is.",
    'string',
    undefined,
    { since12: true, nullable: true, knownWith: 'space_group_symmetry_operations_xyz' },
  ),
  wyckoff_positions: list(
    "The Wyckoff letter of each site in the space group's standard setting; null where space_group_it_number is.",
    'string',
    undefined,
    { since12: true, nullable: true, knownWith: 'wyckoff_positions' },
  ),
  _quarry_pk: scalar("The node's pk in the AiiDA database.", 'integer', 'sid'),
  _quarry_label: scalar("The node's label.", 'string', 'label'),
  _quarry_creator: scalar(
    'The UUID of the calculation that created the structure, null when none did.',
    'string',
    'creator',
    { nullable: true },
  ),
  _quarry_url: {
    description: 'The node in the AiiDA REST API v4 of the same source.',
    type: 'string',
    sortable: false,
    default: true,
  },
};

/**
 * Properties the specification defines for structures that Quarry does not serve: they are known names (no 400),
 * always null: returned as null when asked in `response_fields`, matched by `IS UNKNOWN`, and a comparison on
 * them is a 501.
 */
export const UNSERVED_PROPERTIES = new Set([
  'assemblies',
  'space_group_symbol_hermann_mauguin_extended',
  'site_coordinate_span_description',
  'optimization_type',
]);

/** Whether `name` is a structures property the specification defines or Quarry serves. */
export const isKnownProperty = (name: string): boolean =>
  Object.hasOwn(STRUCTURE_PROPERTIES, name) || UNSERVED_PROPERTIES.has(name);
