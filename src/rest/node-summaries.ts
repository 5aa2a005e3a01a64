/**
 * The node-wide summaries behind `/nodes/statistics/`, `/nodes/full_types/` and `/nodes/full_types_count/`:
 * kept with the storage when it has them (an archive's extracted copy), else computed and kept per data
 * version (summary-cache.ts). `warmSummaries` computes the whole database's ahead of the first request.
 */
import { creationStatistics, typeCounts, type TypeCount } from '../storage/aggregates.js';
import type { StorageBackend } from '../storage/types.js';
import { nodeNamespace } from './namespace.js';
import { currentSummary, keptOnDiskNow, keptSummary, summary, type Summarised } from './summary-cache.js';

/** The summary cache's name of the creation statistics of one user, or of all. */
const statisticsKey = (user: number | undefined) => `statistics:${user}`;

/** The `statistics` answer's data, as JSON: creation dates by day and nodes by type, of one user or all. */
export function statisticsJson(
  backend: StorageBackend,
  user: number | undefined,
): Promise<Summarised<string>> {
  return summary(
    backend,
    statisticsKey(user),
    async () =>
      (await keptSummary(backend, 'creationStatistics', user)) ??
      JSON.stringify(await creationStatistics(backend.db, user)),
  );
}

/** The summary cache's name of the type counts of one user, or of all. */
const typesKey = (user: number | undefined) => `types:${user}`;

/** Nodes counted by node type and process type, of one user or all. */
export function typeCountsOf(
  backend: StorageBackend,
  user: number | undefined,
): Promise<Summarised<TypeCount[]>> {
  return summary(backend, typesKey(user), async (): Promise<TypeCount[]> => {
    const kept = await keptSummary(backend, 'typeCounts', user);
    return kept === undefined ? typeCounts(backend.db, user) : (JSON.parse(kept) as TypeCount[]);
  });
}

/**
 * The number of nodes of one node type, from the whole database's type counts when they are kept at the data
 * version the server is at (always, for an archive), so that a page of a type nobody asked before needs no count
 * of its own; undefined when they are not kept.
 */
export async function nodeTypeCount(backend: StorageBackend, nodeType: string): Promise<number | undefined> {
  // An archive's are kept in its extracted copy: read once, then at hand.
  const types =
    (await currentSummary<TypeCount[]>(backend, typesKey(undefined))) ??
    (backend.kind === 'archive' ? (await typeCountsOf(backend, undefined)).value : undefined);
  if (types === undefined) return undefined;
  let count = 0;
  for (const t of types) if (t.nodeType === nodeType) count += t.count;
  return count;
}

/** Each type count's namespace is serialised once, with and without counts. */
const namespaces = [new WeakMap<TypeCount[], string>(), new WeakMap<TypeCount[], string>()] as const;

/** The `full_types` (or, `counted`, `full_types_count`) answer's data of these type counts, as JSON. */
export function namespaceJson(types: TypeCount[], counted: boolean): string {
  const kept = namespaces[counted ? 1 : 0];
  let json = kept.get(types);
  if (json === undefined) kept.set(types, (json = JSON.stringify(nodeNamespace(types, counted))));
  return json;
}

/** Whether the whole database's summaries were kept on disk by an earlier run, at the data's version now. */
export async function summariesOnDisk(backend: StorageBackend): Promise<boolean> {
  const kept = await Promise.all([
    keptOnDiskNow(backend, statisticsKey(undefined)),
    keptOnDiskNow(backend, typesKey(undefined)),
  ]);
  return kept.every(Boolean);
}

/** The whole database's summaries, computed now (both at once) so that the first requests find them kept. */
export async function warmSummaries(backend: StorageBackend): Promise<void> {
  await Promise.all([statisticsJson(backend, undefined), typeCountsOf(backend, undefined)]);
}
