/**
 * aiida-core's traversal rules for exports (`GraphTraversalRules.EXPORT`, src/aiida/common/links.py): which
 * link types are followed in which direction from the nodes asked for. Six are fixed (following them is what
 * keeps the exported graph consistent: a calculation's inputs, a creator's outputs, a caller's callees); the
 * other six may be turned on or off, each by a query parameter of its name, as `verdi archive create` takes them.
 */

export type LinkType = 'input_calc' | 'create' | 'return' | 'input_work' | 'call_calc' | 'call_work';

export interface TraversalRule {
  name: string;
  link: LinkType;
  direction: 'forward' | 'backward';
  toggleable: boolean;
  default: boolean;
}

/** In aiida-core's order, which is also the order metadata.json lists them in. */
export const EXPORT_RULES: readonly TraversalRule[] = [
  rule('input_calc', 'forward', true, false),
  rule('input_calc', 'backward', false, true),
  rule('create', 'forward', false, true),
  rule('create', 'backward', true, true),
  rule('return', 'forward', false, true),
  rule('return', 'backward', true, false),
  rule('input_work', 'forward', true, false),
  rule('input_work', 'backward', false, true),
  rule('call_calc', 'forward', false, true),
  rule('call_calc', 'backward', true, true),
  rule('call_work', 'forward', false, true),
  rule('call_work', 'backward', true, true),
];

function rule(link: LinkType, direction: 'forward' | 'backward', toggleable: boolean, def: boolean) {
  return { name: `${link}_${direction}`, link, direction, toggleable, default: def };
}

/** Every rule's value, by name, in EXPORT_RULES' order. */
export type RuleValues = Record<string, boolean>;

export function defaultRules(): RuleValues {
  return Object.fromEntries(EXPORT_RULES.map((r) => [r.name, r.default]));
}

/** The link types followed forward (from input to output) and backward, as the values say. */
export function followed(values: RuleValues): { forward: LinkType[]; backward: LinkType[] } {
  const forward: LinkType[] = [];
  const backward: LinkType[] = [];
  for (const r of EXPORT_RULES)
    if (values[r.name]) (r.direction === 'forward' ? forward : backward).push(r.link);
  return { forward, backward };
}
