/**
 * A node's contents as the by-type views read them: attributes and derived properties. Every view asked for them
 * with the same request; here is that request once, and the hook most views need (the attributes, loaded).
 */
import type { Api } from '../../api.js';
import { useLoad, type Loaded } from '../../hooks.js';
import type { TypeViewProps } from '../index.js';

export type Attributes = Record<string, unknown>;

export async function fetchAttributes(api: Api, uuid: string, signal?: AbortSignal): Promise<Attributes> {
  const answer = await api.get<{ attributes: Attributes }>(`/nodes/${uuid}/contents/attributes/`, undefined, {
    signal,
  });
  return answer.data.attributes;
}

export async function fetchDerived<T>(api: Api, uuid: string, signal?: AbortSignal): Promise<T> {
  const answer = await api.get<{ derived_properties: T }>(
    `/nodes/${uuid}/contents/derived_properties/`,
    undefined,
    { signal },
  );
  return answer.data.derived_properties;
}

/** The node's attributes, reloaded when the node (or the API: another profile) changes. */
export function useAttributes({ node, api }: TypeViewProps): Loaded<Attributes> {
  return useLoad((signal) => fetchAttributes(api, node.uuid, signal), [node.uuid, api]);
}
