/**
 * The provenance closure of an export, as aiida-core's `traverse_graph` finds it (src/aiida/tools/graph/
 * graph_traversers.py): from the starting nodes, follow the links of the types the rules name forward (to
 * their outputs) and backward (to their inputs), from every node added, until no node is added. The links
 * written are those between nodes of the closure: aiida-core records every link it walks, and every link type
 * is walked in at least one direction by the fixed rules, so that is every link with both ends inside.
 */
import { HttpError } from '../rest/errors.js';
import type { Database, QueryBudget } from '../storage/types.js';
import { linksAt, type LinkRow } from './source-rows.js';
import { followed, type RuleValues } from './rules.js';

export interface Closure {
  nodes: Set<number>;
  links: LinkRow[];
}

export async function provenanceClosure(
  db: Database,
  start: Iterable<number>,
  rules: RuleValues,
  maxNodes: number,
  budget: QueryBudget,
): Promise<Closure> {
  const { forward, backward } = followed(rules);
  const forwardTypes = new Set<string>(forward);
  const backwardTypes = new Set<string>(backward);
  const nodes = new Set<number>(start);
  const bound = () => {
    if (nodes.size > maxNodes)
      throw new HttpError(
        413,
        `the export would hold more than ${maxNodes} nodes (--max-export-nodes); ask for fewer nodes, or turn rules off (e.g. create_backward=false)`,
      );
  };
  bound();
  // Every link out of a node of the closure, by id: the ones whose output is inside too are written.
  const outgoing = new Map<number, LinkRow>();
  let frontier = [...nodes];
  while (frontier.length > 0) {
    const next: number[] = [];
    const add = (id: number) => {
      if (nodes.has(id)) return;
      nodes.add(id);
      next.push(id);
    };
    for (const link of await linksAt(db, 'input_id', frontier, budget)) {
      outgoing.set(link.id, link);
      if (forwardTypes.has(link.type)) add(link.output);
    }
    if (backwardTypes.size > 0)
      for (const link of await linksAt(db, 'output_id', frontier, budget))
        if (backwardTypes.has(link.type)) add(link.input);
    bound();
    frontier = next;
  }
  const links = [...outgoing.values()].filter((l) => nodes.has(l.output)).sort((a, b) => a.id - b.id);
  return { nodes, links };
}
