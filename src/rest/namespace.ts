/**
 * `/nodes/full_types/` and `/nodes/full_types_count/`: the tree of node types present in the data, as
 * aiida-core's Namespace builds it (restapi/common/identifiers.py), with the same labels, paths and full types.
 */
import { constructFullType } from '../domain/full-type.js';
import type { TypeCount } from '../storage/aggregates.js';

const UNREGISTERED = '~no-entry-point~';

const LABELS: Record<string, string> = {
  node: 'Node',
  'node.data': 'Data',
  'node.process': 'Process',
  'node.process.calculation': 'Calculation',
  'node.process.calculation.calcjob': 'Calculation job',
  'node.process.calculation.calcfunction': 'Calculation function',
  'node.process.workflow': 'Workflow',
  'node.process.workflow.workchain': 'Work chain',
  'node.process.workflow.workfunction': 'Work function',
};

const PROCESS_BASES: [string, string, string][] = [
  ['process.calculation.calcjob.', 'process.calculation.calcjob.CalcJobNode.', 'aiida.calculations'],
  [
    'process.calculation.calcfunction.',
    'process.calculation.calcfunction.CalcFunctionNode.',
    'aiida.calculations',
  ],
  ['process.workflow.workfunction.', 'process.workflow.workfunction.WorkFunctionNode.', 'aiida.workflows'],
  ['process.workflow.workchain.', 'process.workflow.workchain.WorkChainNode.', 'aiida.workflows'],
];

/** Entry point groups aiida knows; `group:name` strings of other groups are not entry points. */
const ENTRY_POINT_GROUPS = new Set([
  'aiida.calculations',
  'aiida.calculations.importers',
  'aiida.calculations.monitors',
  'aiida.cmdline.computer.configure',
  'aiida.cmdline.data',
  'aiida.cmdline.data.structure.import',
  'aiida.data',
  'aiida.groups',
  'aiida.node',
  'aiida.parsers',
  'aiida.schedulers',
  'aiida.storage',
  'aiida.transports',
  'aiida.tools.calculations',
  'aiida.tools.workflows',
  'aiida.tools.data.orbitals',
  'aiida.tools.dbexporters',
  'aiida.tools.dbimporters',
  'aiida.workflows',
]);

function entryPointName(processType: string): string | undefined {
  const parts = processType.split(':');
  return parts.length === 2 && ENTRY_POINT_GROUPS.has(parts[0]!) ? parts[1] : undefined;
}

/** Python's str.rsplit(sep, 2). */
function rsplit2(text: string): string[] {
  const parts = text.split('.');
  return parts.length <= 3 ? parts : [parts.slice(0, -2).join('.'), ...parts.slice(-2)];
}

class Namespace {
  readonly subspaces = new Map<string, Namespace>();
  readonly fullType: string | null;
  readonly label: string;

  constructor(
    readonly namespace: string,
    readonly path: string,
    readonly isLeaf: boolean,
    label?: string,
    fullType?: string,
    private counter?: number,
  ) {
    this.fullType = fullType ?? inferFullType(path);
    this.label = label ?? LABELS[path] ?? path.slice(path.lastIndexOf('.') + 1);
    if (namespace === UNREGISTERED) {
      this.label = 'Unregistered';
      this.fullType = null;
    }
  }

  create(name: string, leaf: { label: string; fullType: string; counter?: number }): void {
    const [head, ...rest] = name.split('.') as [string, ...string[]];
    const path = `${this.path}.${head}`;
    const existing = this.subspaces.get(head);
    if (!existing) {
      this.subspaces.set(
        head,
        rest.length > 0
          ? new Namespace(head, path, false)
          : new Namespace(head, path, true, leaf.label, leaf.fullType, leaf.counter),
      );
    } else if (existing.isLeaf && rest.length > 0) {
      // A leaf that turns out to have children becomes a namespace holding itself.
      const holder = new Namespace(head, path, false);
      holder.subspaces.set(head, existing);
      this.subspaces.set(head, holder);
    } else if (!existing.isLeaf && rest.length === 0) {
      existing.subspaces.set(
        head,
        new Namespace(head, `${path}.${head}`, true, leaf.label, leaf.fullType, leaf.counter),
      );
    }
    if (rest.length > 0) this.subspaces.get(head)!.create(rest.join('.'), leaf);
  }

  describe(): Record<string, unknown> {
    const subspaces = [...this.subspaces.values()].map((s) => s.describe());
    let counter = this.counter;
    for (const s of subspaces) if (typeof s.counter === 'number') counter = (counter ?? 0) + s.counter;
    const out: Record<string, unknown> = {
      full_type: this.fullType,
      label: this.label,
      namespace: this.namespace,
      path: this.path,
      subspaces,
    };
    if (counter !== undefined) out.counter = counter;
    return out;
  }
}

function inferFullType(path: string): string {
  let fullType = path.startsWith('node.') ? path.slice('node.'.length) : path;
  if (fullType.startsWith('process.')) {
    for (const [base, nodeType, group] of PROCESS_BASES) {
      if (!fullType.startsWith(base)) continue;
      const plugin = fullType.slice(base.length);
      if (plugin.startsWith(UNREGISTERED)) return `${nodeType}|${plugin.slice(UNREGISTERED.length + 1)}.%`;
      return `${nodeType}|${group}:${plugin}.%`;
    }
  }
  fullType += '.%|';
  return fullType.startsWith('process.') ? `${fullType}%` : fullType;
}

export function nodeNamespace(types: TypeCount[], withCounts: boolean): Record<string, unknown> {
  const leaves: { namespace: string; label: string; fullType: string; counter?: number }[] = [];
  for (const { nodeType, processType, count } of types) {
    const parts = rsplit2(nodeType);
    let namespace: string;
    let label: string;
    if (processType) {
      const entryPoint = entryPointName(processType);
      namespace = [...parts.slice(0, -2), entryPoint ?? `${UNREGISTERED}.${processType}`].join('.');
      label = (entryPoint ?? processType).slice((entryPoint ?? processType).lastIndexOf('.') + 1);
    } else {
      if (parts.length < 2) continue;
      label = parts[parts.length - 2]!;
      namespace = parts.slice(0, -2).join('.');
    }
    leaves.push({
      namespace,
      label,
      fullType: constructFullType(nodeType, processType),
      counter: withCounts ? count : undefined,
    });
  }
  // Stable sort by namespace, as the reference does.
  leaves.sort((a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : 0));
  // The root is built without a path, so the reference labels it "node", not "Node".
  const root = new Namespace('node', 'node', true, 'node');
  for (const leaf of leaves) root.create(leaf.namespace, leaf);
  return root.describe();
}
