/**
 * The by-type views' contract with the rest of the explorer: which view a node gets, loaded on demand so that a
 * view's library (3Dmol, cytoscape) is fetched only on the pages that show it.
 */
import type { ComponentType } from 'preact';
import type { Api } from '../api.js';
import type { NodeSummary } from '../types.js';
import { viewKind, type ViewKind } from './logic/choose.js';

export interface TypeViewProps {
  node: NodeSummary;
  api: Api;
}

export type TypeViewModule = { default: ComponentType<TypeViewProps> };
type Loader = () => Promise<TypeViewModule>;

// Every import() is a chunk of its own: none of this lands in the first page's JavaScript.
const LOADERS: Record<ViewKind, Loader> = {
  structure: () => import('./views/StructureView.js'),
  cif: () => import('./views/CifView.js'),
  bands: () => import('./views/BandsView.js'),
  kpoints: () => import('./views/KpointsView.js'),
  trajectory: () => import('./views/TrajectoryView.js'),
  xy: () => import('./views/ArrayView.js'),
  array: () => import('./views/ArrayView.js'),
  upf: () => import('./views/UpfView.js'),
  value: () => import('./views/ValueView.js'),
  process: () => import('./views/ProcessView.js'),
  code: () => import('./views/CodeView.js'),
  remote: () => import('./views/RemoteView.js'),
};

/** The view of a node's type, or undefined when its type has none beyond the generic node page. */
export function typeView(node: Pick<NodeSummary, 'node_type' | 'process_type'>): Loader | undefined {
  const kind = viewKind(node.node_type, node.process_type);
  return kind === undefined ? undefined : LOADERS[kind];
}

export interface ProvenanceGraphProps extends TypeViewProps {
  /** Open a node's page (the graph's "open" action). */
  onOpen(uuid: string): void;
  /** Show the links of a node the graph leaves out (its "N more"): the paged link list. */
  onMore(uuid: string, direction: 'incoming' | 'outgoing'): void;
}

export const provenanceGraph = (): Promise<{ default: ComponentType<ProvenanceGraphProps> }> =>
  import('./views/ProvenanceGraph.js');
