/** Which export formats each AiiDA data type offers (the `_prepare_<format>` methods of aiida's data classes). */

const BANDS = [
  'agr',
  'agr_batch',
  'dat_blocks',
  'dat_multicolumn',
  'gnuplot',
  'json',
  'mpl_pdf',
  'mpl_png',
  'mpl_singlefile',
  'mpl_withjson',
];

/** Export formats by aiida.data entry point; the core entry points without formats map to []. */
const FORMATS: Record<string, string[]> = {
  'core.array': ['json'],
  'core.array.bands': BANDS,
  'core.array.kpoints': ['json'],
  'core.array.projection': ['json'],
  'core.array.trajectory': ['cif', 'json', 'xsf'],
  'core.array.xy': ['json'],
  'core.cif': ['cif'],
  'core.structure': ['chemdoodle', 'cif', 'xsf', 'xyz'],
  'core.upf': ['json', 'upf'],
};

const WITHOUT_FORMATS = [
  'core.base',
  'core.bool',
  'core.code',
  'core.code.containerized',
  'core.code.installed',
  'core.code.portable',
  'core.dict',
  'core.enum',
  'core.float',
  'core.folder',
  'core.int',
  'core.jsonable',
  'core.list',
  'core.numeric',
  'core.orbital',
  'core.remote',
  'core.remote.stash',
  'core.remote.stash.folder',
  'core.singlefile',
  'core.str',
];

/** The class node types of the entry points with formats, for the listing of all of them. */
const NODE_TYPES: Record<string, string> = {
  'core.array': 'data.core.array.ArrayData.',
  'core.array.bands': 'data.core.array.bands.BandsData.',
  'core.array.kpoints': 'data.core.array.kpoints.KpointsData.',
  'core.array.projection': 'data.core.array.projection.ProjectionData.',
  'core.array.trajectory': 'data.core.array.trajectory.TrajectoryData.',
  'core.array.xy': 'data.core.array.xy.XyData.',
  'core.cif': 'data.core.cif.CifData.',
  'core.structure': 'data.core.structure.StructureData.',
  'core.upf': 'data.core.upf.UpfData.',
};

/** Every type with formats, keyed by its full type (`<node_type>|`), as GET /nodes/download_formats/ lists them. */
export function allDownloadFormats(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [entryPoint, nodeType] of Object.entries(NODE_TYPES).sort(([, a], [, b]) => (a < b ? -1 : 1))) {
    out[`${nodeType}|`] = FORMATS[entryPoint] as string[];
  }
  return out;
}

/** The aiida.data entry point of a data node type: `data.core.array.bands.BandsData.` -> `core.array.bands`. */
export function dataEntryPoint(nodeType: string): string | undefined {
  if (!nodeType.startsWith('data.')) return undefined;
  const parts = nodeType.slice('data.'.length).split('.');
  return parts.length < 3 ? undefined : parts.slice(0, -2).join('.');
}

/** Formats of one data node type; undefined when the type is not one aiida ships. */
export function formatsOf(nodeType: string): string[] | undefined {
  const entryPoint = dataEntryPoint(nodeType);
  if (entryPoint === undefined) return undefined;
  if (entryPoint in FORMATS) return FORMATS[entryPoint];
  return WITHOUT_FORMATS.includes(entryPoint) ? [] : undefined;
}
