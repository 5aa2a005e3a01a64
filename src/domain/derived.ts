/** `contents/derived_properties/`: what aiida's REST translators compute from a node's attributes. */
import { classType } from './describe.js';
import { dimensionality, structureFormula, structureFromAttributes } from './structure.js';

export class DerivedNotAvailable extends Error {}

export function derivedProperties(
  nodeType: string,
  attributes: Record<string, unknown>,
): Record<string, unknown> {
  const type = classType(nodeType);
  if (type === 'data.core.structure.StructureData.') {
    const structure = structureFromAttributes(attributes);
    return { dimensionality: dimensionality(structure), formula: structureFormula(structure) };
  }
  if (type === 'data.core.array.kpoints.KpointsData.') {
    // Brillouin-zone faces (seekpath): not written yet.
    throw new DerivedNotAvailable(`derived properties of ${nodeType} are not implemented yet in Quarry`);
  }
  // Every other type has none; the reference crashed on them, an empty object is the answer.
  return {};
}
