/**
 * Node-wide summaries (statistics, type counts) cost a pass over every node: milliseconds on an archive, many
 * seconds on a live database of millions of nodes. An archive never changes while it is served, so its
 * summaries are computed once. A live database's are kept under the data version of the server that computed
 * them (replicas may lag behind the primary, so a few versions are kept).
 *
 * When the data changes, the summary of the new version is computed in the background, one at a time, and a
 * request waits for it only briefly: past that it is answered with the newest summary computed, marked as not
 * current (its answer then carries no ETag, which would name the new version). A database whose writers never
 * stop (a running AiiDA daemon) would otherwise have every request after each change wait for a full pass, and
 * the passes take no more than a fifth of the time of one database session.
 *
 * A PostgreSQL source also keeps each summary on disk (storage/summary-files.ts): a restarted Quarry on the
 * same unchanged database answers at once instead of after a pass.
 */
import { originOf } from '../storage/budgeted.js';
import type { KeptSummaryName, StorageBackend } from '../storage/types.js';
import { within } from '../util/within.js';

/** Versions of one summary kept at once: the primary's and its replicas' while they catch up. */
const VERSIONS_KEPT = 4;
/** How long a request waits for the summary of a changed database before it takes the newest one computed. */
export const STALE_AFTER_MS = 250;
/**
 * A summary whose last computation took longer than STALE_AFTER_MS is computed again no sooner than this many
 * times that length after it ended.
 */
const REFRESH_SPACING = 4;

export interface Summarised<T> {
  value: T;
  /** Computed at the data version the request's server is at now (always, for an archive). */
  current: boolean;
}

/** One summary of one storage. */
interface Kept {
  promise: Promise<unknown>;
  /** Set once the promise has settled with a value: answered without waiting. */
  settled?: { value: unknown };
}

interface Slot {
  kept: Map<string, Kept>;
  /** The newest value computed, of whichever version. */
  latest?: { value: unknown };
  /** The computation under way, if any: at most one at a time once a value exists. */
  running?: Promise<unknown>;
  /** Not before this time (ms) is another version computed, once a value exists. */
  nextAt: number;
}

const slots = new WeakMap<StorageBackend, Map<string, Slot>>();

function slotOf(backend: StorageBackend, name: string): Slot {
  const storage = originOf(backend);
  let byName = slots.get(storage);
  if (!byName) slots.set(storage, (byName = new Map()));
  let slot = byName.get(name);
  if (!slot) byName.set(name, (slot = { kept: new Map(), nextAt: 0 }));
  return slot;
}

function start<T>(slot: Slot, version: string, compute: () => Promise<T>): Promise<T> {
  // The oldest versions go first.
  const versions = [...slot.kept.keys()];
  for (const old of versions.slice(0, Math.max(0, versions.length - VERSIONS_KEPT + 1))) {
    slot.kept.delete(old);
  }
  const began = Date.now();
  const value = compute();
  const kept: Kept = { promise: value };
  slot.kept.set(version, kept);
  slot.running = value;
  void value
    .then(
      (v) => {
        kept.settled = { value: v };
        slot.latest = kept.settled;
        const ended = Date.now();
        const length = ended - began;
        // Only a computation longer than a request waits for is spaced: a quick one runs at the next change.
        slot.nextAt = length < STALE_AFTER_MS ? 0 : ended + REFRESH_SPACING * length;
      },
      // A failure (a time limit, the database gone) is not remembered: the next request tries again.
      () => {
        if (slot.kept.get(version) === kept) slot.kept.delete(version);
      },
    )
    .finally(() => {
      if (slot.running === value) slot.running = undefined;
    });
  return value;
}

export async function summary<T>(
  backend: StorageBackend,
  name: string,
  compute: () => Promise<T>,
): Promise<Summarised<T>> {
  const version = backend.dataVersion ? await backend.dataVersion() : '';
  const slot = slotOf(backend, name);
  const kept = slot.kept.get(version);
  if (kept?.settled) return { value: kept.settled.value as T, current: true };
  const computeKept = () => keptOnDisk(backend, name, version, compute);
  let pending = kept?.promise as Promise<T> | undefined;
  if (slot.latest === undefined) {
    // Nothing computed yet: this version's value, or the one being computed (at start-up, say).
    if (pending) return { value: await pending, current: true };
    if (slot.running) return { value: (await slot.running) as T, current: false };
    return { value: await start(slot, version, computeKept), current: true };
  }
  if (!pending && slot.running === undefined && Date.now() >= slot.nextAt) {
    pending = start(slot, version, computeKept);
  }
  // A failure counts as not settled: the newest value is answered.
  const quick = pending && (await within(pending, STALE_AFTER_MS));
  if (quick && 'value' in quick) return { value: quick.value, current: true };
  return { value: slot.latest.value as T, current: false };
}

/**
 * The summary `name` computed at the data version the request's server is at now, when one is kept; never
 * computed here (for requests that can do without it).
 */
export async function currentSummary<T>(backend: StorageBackend, name: string): Promise<T | undefined> {
  const version = backend.dataVersion ? await backend.dataVersion() : '';
  return slots.get(originOf(backend))?.get(name)?.kept.get(version)?.settled?.value as T | undefined;
}

/** Whether a previous run kept the summary `name` on disk at the version the storage is at now. */
export async function keptOnDiskNow(backend: StorageBackend, name: string): Promise<boolean> {
  const files = backend.summaryFiles;
  if (files === undefined) return false;
  const version = backend.dataVersion ? await backend.dataVersion() : '';
  return (await files.find(backend.db, name, version)).value !== undefined;
}

/** The summary as a previous run kept it on disk at this version, else computed now and kept for the next. */
async function keptOnDisk<T>(
  backend: StorageBackend,
  name: string,
  version: string,
  compute: () => Promise<T>,
): Promise<T> {
  const files = backend.summaryFiles;
  if (files === undefined) return compute();
  const kept = await files.find(backend.db, name, version);
  if (kept.value !== undefined) return kept.value as T;
  const value = await compute();
  void kept.keep(value);
  return value;
}

/**
 * The JSON of a summary the storage kept when it was prepared (an archive's extracted copy), if any. Only the
 * whole database's are kept: a summary of one user's nodes is always computed.
 */
export async function keptSummary(
  backend: StorageBackend,
  name: KeptSummaryName,
  user: number | undefined,
): Promise<string | undefined> {
  return user === undefined ? backend.keptSummary?.(name) : undefined;
}
