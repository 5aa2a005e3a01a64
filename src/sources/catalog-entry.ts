/** What the catalog (catalog.ts) keeps of each source: its spec, and while open its storage and its users. */
import type { FileHolder } from '../storage/file-budget.js';
import type { StorageBackend } from '../storage/types.js';
import type { SourceKind, SourceSpec } from './catalog.js';
import type { SourceOpenFailedError } from './refusals.js';

export interface Entry {
  spec: SourceSpec;
  backend?: StorageBackend;
  opening?: Promise<StorageBackend>;
  /** Requests holding the source now. */
  users: number;
  lastUsed: number;
  /** Its share of the open-file budget while open (which also closes it once idle for long). */
  holder?: FileHolder;
  /** Opened by the caller and never closed by the catalog (sources named on the command line). */
  pinned: boolean;
  /** No longer in the catalog: closed once its last request has finished. */
  retired: boolean;
  nodes: number | null;
  aiidaVersion: string | null;
  /** An archive's export version (an AiiDA 1.x archive's original one, such as 0.13), once opened. */
  exportVersion: string | null;
  /** What the storage turned out to be once opened (a profile's kind is known from AiiDA's configuration). */
  kind?: SourceKind;
  /** The last opening failed: requests until `until` get its answer without trying again. */
  failed?: { error: SourceOpenFailedError; until: number };
}

/** Files an open source keeps: its zip (or folder's database) and the connection quick statements run on. */
export function filesOf(kind: SourceKind): number {
  return kind === 'postgres-profile' ? 0 : 2;
}

export function newEntry(spec: SourceSpec, backend?: StorageBackend): Entry {
  return {
    spec,
    backend,
    users: 0,
    lastUsed: 0,
    pinned: backend !== undefined,
    retired: false,
    nodes: null,
    aiidaVersion: backend?.aiidaVersion ?? null,
    exportVersion: backend?.exportVersion ?? null,
  };
}
