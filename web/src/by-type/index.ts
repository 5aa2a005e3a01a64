/**
 * Views by node type (owned by the `web-views` branch, which replaces this file): which view a node's page shows
 * above its generic parts, and the provenance graph. Each is loaded on demand, in its own chunk.
 */
import type { ComponentType } from 'preact';
import type { Api } from '../api.js';
import type { NodeSummary } from '../types.js';

export interface TypeViewProps {
  node: NodeSummary;
  api: Api;
}

export type TypeViewLoader = () => Promise<{ default: ComponentType<TypeViewProps> }>;

/** The view of this node's type, if there is one. */
export function typeView(_node: NodeSummary): TypeViewLoader | undefined {
  return undefined;
}

/** The provenance graph of a node's neighbourhood; `onOpen` goes to a neighbour's page. */
export const provenanceGraph = (): Promise<{
  default: ComponentType<TypeViewProps & { onOpen(uuid: string): void }>;
}> => Promise.reject(new Error('The provenance graph view is not part of this build yet.'));
