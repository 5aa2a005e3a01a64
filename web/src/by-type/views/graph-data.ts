/**
 * What the provenance graph asks the API: a node's neighbourhood (`links/tree`, a bounded number of neighbours
 * per direction) and the formulas of the structures among the nodes it adds (one request for all of them).
 */
import type { Api } from '../../api.js';
import { FORMULA_ATTRIBUTES, formulaOf, hasFormula } from '../../chemistry.js';
import { NEIGHBOURS_PER_DIRECTION, type Graph, type TreeAnswer } from '../logic/graph.js';

export const fetchTree = async (api: Api, uuid: string): Promise<TreeAnswer> =>
  (
    await api.get<TreeAnswer>(
      `/nodes/${uuid}/links/tree/`,
      `in_limit=${NEIGHBOURS_PER_DIRECTION}&out_limit=${NEIGHBOURS_PER_DIRECTION}`,
    )
  ).data;

/** Formulas by uuid of the given nodes that have one; a failure leaves the boxes with their labels. */
export async function fetchFormulas(api: Api, graph: Graph, ids: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const byPk = new Map<number, string>();
  for (const id of ids) {
    const n = graph.nodes.get(id);
    if (n && n.pk !== undefined && hasFormula(n.nodeType)) byPk.set(n.pk, id);
  }
  if (byPk.size === 0) return found;
  const pks = [...byPk.keys()].join(',');
  try {
    const answer = await api.get<{ nodes: { id: number; attributes?: Record<string, unknown> }[] }>(
      '/nodes/',
      // `in` takes a list of two or more (a single value is the v4 language's plain equality).
      `${byPk.size === 1 ? `id=${pks}` : `id=in=${pks}`}&limit=${byPk.size}&attributes=true&attributes_filter=${FORMULA_ATTRIBUTES.join(',')}`,
    );
    for (const n of answer.data.nodes) {
      const formula = formulaOf(n.attributes);
      const id = byPk.get(n.id);
      if (formula !== undefined && id !== undefined) found.set(id, formula);
    }
  } catch {
    // The formula is a nicety; the box keeps its label.
  }
  return found;
}
