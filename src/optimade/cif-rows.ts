/**
 * CifData nodes as rows of structures: the node's CIF file, read from the source's repository, gives the
 * attributes a StructureData would have (cif-sites.ts), and the row is then made like any structure's. A file
 * that cannot be read into sites (or is missing) leaves its node out of OPTIMADE.
 */
import { fileKey } from '../domain/repository-tree.js';
import type { StorageBackend } from '../storage/types.js';
import { CIF_TYPE, cifAttributes } from './cif-sites.js';

/** Most bytes of a CIF file read into sites: a larger one is a data set, not a structure. */
const MOST_BYTES = 8 * 1024 * 1024;

/** The row with the CIF file's sites as its attributes; a structure's row as it is; undefined if unreadable. */
export async function withSites(backend: StorageBackend, row: unknown[]): Promise<unknown[] | undefined> {
  if (row[6] !== CIF_TYPE) return row;
  try {
    const parse = (v: unknown) =>
      (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown> | null;
    const filename = parse(row[4])?.filename;
    if (typeof filename !== 'string') return undefined;
    const object = await backend.repository.get(fileKey(parse(row[7]), filename));
    if (object === undefined || object.size > MOST_BYTES) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of await object.stream()) chunks.push(chunk as Buffer);
    const attributes = cifAttributes(Buffer.concat(chunks).toString('utf8'));
    if (attributes === undefined) return undefined;
    const out = [...row];
    out[4] = attributes;
    return out;
  } catch {
    return undefined;
  }
}
