/** `contents/derived_properties/`: what aiida's REST translators compute from a node's attributes. */
import { classType } from './describe.js';
import { dimensionality, structureFormula, structureFromAttributes } from './structure.js';

export function derivedProperties(
  nodeType: string,
  attributes: Record<string, unknown>,
): Record<string, unknown> {
  const type = classType(nodeType);
  if (type === 'data.core.structure.StructureData.') {
    const structure = structureFromAttributes(attributes);
    return { dimensionality: dimensionality(structure), formula: structureFormula(structure) };
  }
  // Every other type has none; the reference crashed on them, an empty object is the answer.
  return {};
}
