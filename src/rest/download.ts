/** `/nodes/<id>/download/`: a data node exported in one of the formats its class offers. */
import { derivedProperties } from '../domain/derived.js';
import { kpointsDerived } from '../domain/kpoints-derived.js';
import { classType } from '../domain/describe.js';
import { dataEntryPoint, formatsOf } from '../domain/download-formats.js';
import { arraysJson } from '../domain/formats/array-json.js';
import { NpyError } from '../domain/formats/npy.js';
import {
  agrBatch,
  bandsJson,
  datBlocks,
  datMulticolumn,
  gnuplotScript,
  type Bands,
} from '../domain/formats/bands.js';
import { agrProject } from '../domain/formats/bands-agr.js';
import { mplSinglefile, mplWithJson, plotDict } from '../domain/formats/bands-matplotlib.js';
import { figureOf, figurePdf, figurePng } from '../domain/formats/bands-plot.js';
import { cifBlock } from '../domain/formats/cif-writer.js';
import { readNpy } from '../domain/formats/npy.js';
import { toChemdoodle, toXsf, toXyz, UnsupportedExportError } from '../domain/formats/structure-formats.js';
import { UpfFormatError, upfToJson } from '../domain/formats/upf-json.js';
import { trajectoryCif, trajectoryXsf, type Trajectory } from '../domain/formats/trajectory-formats.js';
import { hasVacancies, isAlloy, isCell, structureFromAttributes } from '../domain/structure.js';
import type { StorageBackend } from '../storage/types.js';
import { BytesKept } from '../util/bytes-kept.js';
import { keptVersion } from './kept-version.js';
import { carryMark, markFloat, markFloats, RawJson } from '../util/exact-json.js';
import { badRequest, inputError, notImplemented } from './errors.js';
import { readNodeFile, type NodeRecord } from './node-contents.js';

export interface Export {
  filename: string;
  content: Buffer;
}

const FORMATS_HINT =
  'The available download formats can be queried using the /nodes/download_formats/ endpoint.';
/** Classes whose download is named after their file. */
const FILE_CLASSES = new Set(['core.cif', 'core.upf', 'core.singlefile']);
const ARRAY_JSON = new Set([
  'core.array',
  'core.array.kpoints',
  'core.array.xy',
  'core.array.trajectory',
  'core.array.projection',
]);

/**
 * Exports of nodes, by the data's version (an archive's identity), node and format. Small: a download's whole
 * answer is kept once for the machine with the other GET answers (src/ops/kept-gets.ts); these are the process's
 * own, for exports past that store's bound and servers that keep no whole answers.
 */
const kept = new BytesKept<Export>(16 * 1024 * 1024, (e) => e.content.length);

/** The export cache (tests). */
export const exportCache = kept;

/**
 * The node in `format`; `deadline` (ms since the epoch) bounds the drawing of a plot. An export is made once
 * and kept while the data is unchanged (an archive's for good).
 */
export async function exportNode(
  backend: StorageBackend,
  node: NodeRecord,
  format: unknown,
  deadline = Date.now() + 30_000,
): Promise<Export> {
  if (node.node_type.startsWith('process.'))
    throw notImplemented('This endpoint is not available for Process nodes.');
  if (format === undefined) throw inputError(`Please specify the download format. ${FORMATS_HINT}`);
  const type = classType(node.node_type);
  const name = String(format);
  if (type === 'data.core.structure.StructureData.' && name === 'cif') {
    const kinds = structureFromAttributes(node.attributes).kinds;
    if (kinds.some((k) => isAlloy(k) || hasVacancies(k))) {
      throw badRequest(
        'CIF export goes through ASE, which cannot represent alloys or vacancies; use chemdoodle',
      );
    }
  }
  if (!(formatsOf(type) ?? []).includes(name))
    throw inputError(`The format ${name} is not supported. ${FORMATS_HINT}`);
  const entryPoint = dataEntryPoint(type) ?? '';
  const ownName = node.attributes.filename;
  const filename =
    FILE_CLASSES.has(entryPoint) && typeof ownName === 'string' ? ownName : `${node.uuid}.${name}`;
  // A plot of a live source is kept too, under its data version: 8 clients downloading a band structure's PNG
  // from PostgreSQL kept both cores drawing it (a single node's p99 26 ms beside them instead of 3 ms).
  const version = await keptVersion(backend);
  const key = version === undefined ? undefined : `${version}\u0000${node.uuid}\u0000${name}`;
  const known = key === undefined ? undefined : kept.get(key);
  if (known) return known;
  try {
    const made = { filename, content: Buffer.from(await render(backend, node, entryPoint, name, deadline)) };
    if (key !== undefined) kept.set(key, made);
    return made;
  } catch (error) {
    if (error instanceof UnsupportedExportError) throw badRequest(error.message);
    if (error instanceof NpyError) throw badRequest(`an array of this node cannot be read: ${error.message}`);
    if (error instanceof UpfFormatError)
      throw badRequest(`the UPF file of this node cannot be read: ${error.message}`);
    throw error;
  }
}

async function render(
  backend: StorageBackend,
  node: NodeRecord,
  entryPoint: string,
  format: string,
  deadline: number,
): Promise<string | Buffer> {
  if (entryPoint === 'core.structure') {
    const structure = structureFromAttributes(node.attributes);
    if (format === 'xyz') return toXyz(structure);
    if (format === 'xsf') return toXsf(structure);
    if (format === 'chemdoodle') return toChemdoodle(structure);
    if (format === 'cif') {
      const symbols = new Map(structure.kinds.map((k) => [k.name, k.symbols[0] ?? k.name]));
      return cifBlock('0', structure, (name) => symbols.get(name) ?? name);
    }
  }
  if (entryPoint === 'core.array.trajectory' && (format === 'xsf' || format === 'cif')) {
    const trajectory = await readTrajectory(backend, node);
    return format === 'xsf' ? trajectoryXsf(trajectory) : trajectoryCif(trajectory);
  }
  if ((entryPoint === 'core.cif' && format === 'cif') || (entryPoint === 'core.upf' && format === 'upf')) {
    return readNodeFile(backend, node, String(node.attributes.filename));
  }
  if (entryPoint === 'core.array.bands' && format in BAND_FORMATS) {
    return BAND_FORMATS[format]!(await readBands(backend, node), node, deadline);
  }
  if (entryPoint === 'core.upf' && format === 'json') {
    const filename = String(node.attributes.filename);
    return upfToJson((await readNodeFile(backend, node, filename)).toString('utf8'), filename);
  }
  if (ARRAY_JSON.has(entryPoint) && format === 'json') {
    return arraysJson(node.uuid, node.attributes, (file) => readNodeFile(backend, node, file));
  }
  throw notImplemented(`Export of ${node.node_type} as ${format} is not implemented yet in Quarry`);
}

/** `contents/derived_properties/`: the band segments for BandsData (they live in files), else from attributes. */
export async function derivedOf(backend: StorageBackend, node: NodeRecord): Promise<Record<string, unknown>> {
  const type = classType(node.node_type);
  // Computed numbers are written as the reference's numpy floats are (a volume of 27.0, k-point 0.0).
  if (type === 'data.core.array.bands.BandsData.') {
    return { bands: new RawJson(bandsJson(await readBands(backend, node), false)) };
  }
  if (type === 'data.core.array.kpoints.KpointsData.') {
    const kpoints =
      'array|kpoints' in node.attributes
        ? readNpy(await readNodeFile(backend, node, 'kpoints.npy'))
        : undefined;
    const derived = kpointsDerived(node.attributes, kpoints);
    const floats = !kpoints || kpoints.isFloat || 'mesh' in node.attributes;
    for (const key of ['explicit_kpoints_rel', 'labelled_kpoints_rel']) if (floats) floatsIn(derived[key]);
    for (const key of ['explicit_kpoints_abs', 'labelled_kpoints_abs']) floatsIn(derived[key]);
    // The mesh and offset are the attributes' own (an offset of 0.0 stays a float).
    for (const key of ['mesh', 'offset']) if (key in derived) carryMark(node.attributes, key, derived);
    const zone = derived.faces_data as Record<string, unknown> | undefined;
    if (zone) for (const key of ['faces', 'triangles_vertices']) markFloats(zone[key]);
    return derived;
  }
  const derived = derivedProperties(node.node_type, node.attributes);
  const dimensionality = derived.dimensionality as { dim: number } | undefined;
  // numpy's norm or volume; a 0-dimensional structure's 0 is an int.
  if (dimensionality && dimensionality.dim > 0) markFloat(dimensionality, 'value');
  return derived;
}

/** Lists of coordinates, or labelled points (`{G: [0, 0, 0]}`), written as floats. */
function floatsIn(value: unknown): void {
  if (Array.isArray(value)) markFloats(value);
  else if (typeof value === 'object' && value !== null) Object.values(value).forEach((v) => markFloats(v));
}

const units = (node: NodeRecord) => String(node.attributes.units);

const BAND_FORMATS: Record<
  string,
  (b: Bands, node: NodeRecord, deadline: number) => string | Buffer | Promise<Buffer>
> = {
  agr_batch: agrBatch,
  dat_blocks: datBlocks,
  dat_multicolumn: datMulticolumn,
  agr: (b, node) => agrProject(b, units(node)),
  gnuplot: (b, node) => gnuplotScript(b, units(node)),
  json: (b) => bandsJson(b),
  mpl_pdf: (b, node) => figurePdf(figureOf(plotDict(b, units(node)))),
  mpl_png: (b, node, deadline) => figurePng(figureOf(plotDict(b, units(node))), deadline),
  mpl_singlefile: (b, node) => mplSinglefile(b, units(node)),
  mpl_withjson: (b, node) => mplWithJson(b, units(node)),
};

export async function readBands(backend: StorageBackend, node: NodeRecord): Promise<Bands> {
  const a = node.attributes;
  const names = a.labels;
  const numbers = a.label_numbers;
  return {
    uuid: node.uuid,
    label: node.label ?? '',
    bands: readNpy(await readNodeFile(backend, node, 'bands.npy')),
    kpoints: readNpy(await readNodeFile(backend, node, 'kpoints.npy')),
    cell: isCell(a.cell) ? a.cell : undefined,
    labels:
      Array.isArray(names) && Array.isArray(numbers)
        ? numbers.map((n, i): [number, string] => [Number(n), String(names[i])])
        : undefined,
  };
}

async function readTrajectory(backend: StorageBackend, node: NodeRecord): Promise<Trajectory> {
  const a = node.attributes;
  if (!('array|cells' in a)) {
    throw new UnsupportedExportError('this trajectory has no cells, which the format needs');
  }
  const pbc = Array.isArray(a.pbc) ? (a.pbc.map(Boolean) as [boolean, boolean, boolean]) : [true, true, true];
  return {
    // Not a list of symbols (not AiiDA's): none, and the format says what it lacks.
    symbols: Array.isArray(a.symbols) ? a.symbols.map(String) : [],
    cells: readNpy(await readNodeFile(backend, node, 'cells.npy')),
    positions: readNpy(await readNodeFile(backend, node, 'positions.npy')),
    pbc: pbc as [boolean, boolean, boolean],
  };
}
