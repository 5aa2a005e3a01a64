/**
 * A process's inputs as a scientist reads them: the code first, then the structure, the parameters, the k-points,
 * the pseudopotentials gathered by element, then the rest, each with the one line that says what it is. Pure:
 * the incoming links (with a few attributes) in, the rows out.
 */
import { formulaOf } from '../../chemistry.js';
import { typeName } from '../../format.js';

/** The attributes the inputs table asks the links endpoint for (never a whole array or dictionary). */
export const INPUT_ATTRIBUTES = [
  'kinds',
  'sites',
  'formulae',
  'mesh',
  'offset',
  'element',
  'filename',
  'value',
  'input_plugin',
  'filepath_executable',
];

export interface InputLink {
  uuid: string;
  id: number;
  label: string;
  node_type: string;
  link_label: string;
  link_type: string;
  attributes?: Record<string, unknown> | null;
}

export type InputKind = 'code' | 'structure' | 'parameters' | 'kpoints' | 'pseudo' | 'other';

export interface InputRow {
  kind: InputKind;
  /** The link label, namespaces shown as AiiDA writes them in Python (`pw.parameters`). */
  label: string;
  link: InputLink;
  /** One line about the node: a formula, a mesh, an element and file, a value. */
  summary?: string;
  /** For a structure: its formula (the summary, kept apart to draw its subscripts). */
  formula?: string;
}

export interface Pseudo {
  element: string;
  filename?: string;
  link: InputLink;
}

export interface ProcessInputs {
  rows: InputRow[];
  /** Pseudopotentials by element, in the order of the periodic-table symbol (alphabetical). */
  pseudos: Pseudo[];
}

const ORDER: InputKind[] = ['code', 'structure', 'parameters', 'kpoints', 'pseudo', 'other'];

function kindOf(link: InputLink): InputKind {
  const t = link.node_type;
  if (t.startsWith('data.core.code.')) return 'code';
  if (t.startsWith('data.core.structure.') || t.startsWith('data.core.cif.')) return 'structure';
  if (t.startsWith('data.core.array.kpoints.')) return 'kpoints';
  if (t.startsWith('data.core.upf.') || t.startsWith('data.pseudo.')) return 'pseudo';
  if (t.startsWith('data.core.dict.')) return 'parameters';
  return 'other';
}

const plain = (value: unknown): string | undefined => {
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : String(+value.toPrecision(8));
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'string') return value.length > 80 ? `${value.slice(0, 79)}…` : value;
  return undefined;
};

function summaryOf(kind: InputKind, attributes: Record<string, unknown>): string | undefined {
  if (kind === 'code') {
    const plugin = typeof attributes.input_plugin === 'string' ? attributes.input_plugin : undefined;
    const exe =
      typeof attributes.filepath_executable === 'string' ? attributes.filepath_executable : undefined;
    return [plugin, exe].filter(Boolean).join(' · ') || undefined;
  }
  if (kind === 'kpoints') {
    const { mesh, offset } = attributes;
    // Without a mesh, a set is its list of points (array `kpoints`, which the inputs table does not fetch).
    if (!Array.isArray(mesh)) return 'explicit list of points';
    const shift = Array.isArray(offset) && offset.some((o) => o !== 0) ? `, offset ${offset.join(' ')}` : '';
    return `mesh ${mesh.join(' × ')}${shift}`;
  }
  if (kind === 'other') return plain(attributes.value);
  return undefined;
}

/** A code's and a dictionary's rows say more than their kind; the others say at least that. */
const namedKind = (kind: InputKind, nodeType: string) =>
  kind === 'code' || kind === 'parameters' ? undefined : typeName(nodeType);

/** `pw__parameters` → `pw.parameters` (AiiDA stores a namespace's separator as a double underscore). */
export const linkLabel = (label: string) => label.replace(/__/g, '.');

/** The incoming links of a process: its inputs (input_calc, input_work), ordered and summarised. */
export function processInputs(links: InputLink[]): ProcessInputs {
  const rows: InputRow[] = [];
  const pseudos: Pseudo[] = [];
  for (const link of links) {
    if (!link.link_type.startsWith('input_')) continue;
    const kind = kindOf(link);
    const attributes = link.attributes ?? {};
    if (kind === 'pseudo' && typeof attributes.element === 'string') {
      const filename = typeof attributes.filename === 'string' ? attributes.filename : undefined;
      pseudos.push({ element: attributes.element, filename, link });
      continue;
    }
    const formula = kind === 'structure' ? formulaOf(attributes) : undefined;
    rows.push({
      kind,
      label: linkLabel(link.link_label),
      link,
      formula,
      // The kind's name where nothing else says what the node is (`KpointsData`, never its raw node type).
      summary: formula ?? summaryOf(kind, attributes) ?? namedKind(kind, link.node_type),
    });
  }
  rows.sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind) || a.label.localeCompare(b.label));
  pseudos.sort(
    (a, b) => a.element.localeCompare(b.element) || a.link.link_label.localeCompare(b.link.link_label),
  );
  return { rows, pseudos };
}

/**
 * A dictionary's values unfolded to one row each, nested keys joined by dots (`SYSTEM.ecutwfc`), lists of
 * plain values on one line; `limit` rows at most (the rest is on the dictionary's own page).
 */
export function unfold(value: unknown, limit = 60): { rows: [string, string][]; total: number } {
  const rows: [string, string][] = [];
  let total = 0;
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v) && v.every((x) => plain(x) !== undefined || x === null)) {
      total++;
      if (rows.length < limit) rows.push([path, v.map((x) => plain(x) ?? 'None').join(', ')]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
      for (const [key, inner] of entries) walk(inner, path === '' ? key : `${path}.${key}`);
    } else {
      total++;
      if (rows.length < limit) rows.push([path, plain(v) ?? 'None']);
    }
  };
  walk(value, '');
  return { rows, total };
}
