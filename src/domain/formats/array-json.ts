/** The JSON export of ArrayData and its subclasses: every array as nested lists, plus provenance notes. */
import { holdsStrings, readNpy, readNpyStrings, stringsToNestedList, toNestedList } from './npy.js';
import { PyFloat, pyJson } from './python-text.js';

/** The AiiDA release whose export formats Quarry reproduces; the files name it in their header. */
export const AIIDA_FORMAT_VERSION = '2.3.1';

export const FILE_HEADER =
  `This file has been created with AiiDA v. ${AIIDA_FORMAT_VERSION}\n` +
  'If you use AiiDA for publication purposes, please cite:\n' +
  'S. P. Huber et al., "AiiDA 1.0, a scalable computational infrastructure for automated reproducible workflows ' +
  'and data provenance", Scientific Data 7, 300 (2020); https://doi.org/10.1038/s41597-020-00638-4';

/** Array names in the order aiida lists them: the order of the `array|<name>` attributes. */
export function arrayNames(attributes: Record<string, unknown>): string[] {
  return Object.keys(attributes)
    .filter((k) => k.startsWith('array|'))
    .map((k) => k.slice('array|'.length));
}

export async function arraysJson(
  uuid: string,
  attributes: Record<string, unknown>,
  readFile: (name: string) => Promise<Buffer>,
): Promise<string> {
  const out: Record<string, unknown> = {};
  for (const name of arrayNames(attributes)) {
    const buffer = await readFile(`${name}.npy`);
    // Arrays of strings (QE's atomic_species_name, the symbols of AiiDA 0.x trajectories) as lists of strings.
    if (holdsStrings(buffer)) {
      out[name] = stringsToNestedList(readNpyStrings(buffer));
      continue;
    }
    const array = readNpy(buffer);
    out[name] = toNestedList(array, (v) => (array.isFloat ? new PyFloat(v) : v));
  }
  out.original_uuid = uuid;
  out.comments = FILE_HEADER;
  return pyJson(out);
}
