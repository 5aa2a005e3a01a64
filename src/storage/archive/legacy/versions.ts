/**
 * The export versions of AiiDA's JSON-based archive format (AiiDA 0.x and 1.x, and 2.0's pre-releases):
 * `metadata.json`, `data.json` and a `nodes/` tree, converted by Quarry to the SQLite copy a main_0001
 * archive gets (convert.ts).
 */

/** 0.1 to 0.13, as metadata.json writes them. */
export const LEGACY_VERSIONS: readonly string[] = Array.from({ length: 13 }, (_, i) => `0.${i + 1}`);

export function isLegacyVersion(version: unknown): version is string {
  return typeof version === 'string' && LEGACY_VERSIONS.includes(version);
}

/** The minor number: 1 for 0.1 ... 13 for 0.13 (the version steps are written against it). */
export function minorOf(version: string): number {
  return Number(version.slice(2));
}

/** Whether a version looks like one of this format that Quarry does not know (0.14, 0.0). */
export function looksLegacy(version: unknown): boolean {
  return typeof version === 'string' && /^0\.\d+$/.test(version);
}
