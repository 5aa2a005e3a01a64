/**
 * The generated graph's rows (main_0001 schema: AiiDA 2.x names and types) as a legacy export version holds
 * them: each rule undoes one step of aiida-core's migrations (named beside it), so that migrating the archive
 * written here gives back what the generator made (up to what those migrations lose, such as the process
 * type of 0.1-0.3 workflows).
 */
import type { LegacyFormat } from './versions.js';

export type Json = Record<string, unknown>;

export interface NodeRow {
  id: number;
  uuid: string;
  node_type: string;
  process_type: string | null;
  label: string;
  description: string;
  ctime: string;
  mtime: string;
  attributes: string;
  extras: string;
  repository_metadata: string;
  dbcomputer_id: number | null;
  user_id: number;
}

/** '2019-03-04 10:31:13.783386' (SQLite) -> '2019-03-04T10:31:13.783386', the format of data.json. */
export const exportTime = (time: string) => time.replace(' ', 'T');

const ACTIVE = new Set(['created', 'waiting', 'running']);

/** v0.1-0.3 base types (migration 0009 of aiida-core 1.x: data.base.Int. -> data.int.Int.). */
const BASE_TYPES = new Set(['int', 'float', 'str', 'bool', 'list']);

/** The legacy type string (0.1-0.3 `type`, else `node_type`) and `process_type` of a node. */
export function nodeTypes(f: LegacyFormat, node: NodeRow): { type: string; processType: string } {
  let type = node.node_type;
  let processType = node.process_type ?? '';
  if (type.startsWith('data.core.code.')) type = 'data.core.code.Code.';
  // v11 -> v12 put data types and core entry points under `core.`.
  if (f.v < 12) {
    if (type.startsWith('data.core.')) type = type.replace('data.core.', 'data.');
    processType = processType.replace(/^(aiida\.(calculations|workflows)):core\./, '$1:');
  }
  if (f.v >= 4) return { type, processType };
  // 0.1-0.3: the types before the provenance redesign (migration 0020 of aiida-core 1.x, read backwards).
  if (type === 'data.code.Code.') type = 'code.Code.';
  else if (type === 'data.dict.Dict.') type = 'data.parameter.ParameterData.';
  else {
    const base = /^data\.(\w+)\.(\w+)\.$/.exec(type);
    if (base && BASE_TYPES.has(base[1]!)) type = `data.base.${base[2]}.`;
  }
  if (type === 'process.calculation.calcjob.CalcJobNode.') {
    const entryPoint = processType.replace(/^aiida\.calculations:/, '');
    const { process_label: label } = JSON.parse(node.attributes) as Json;
    type = `calculation.job.${entryPoint}.${String(label ?? 'JobCalculation')}.`;
  } else if (type === 'process.calculation.calcfunction.CalcFunctionNode.') {
    type = 'calculation.inline.InlineCalculation.';
  } else if (type.startsWith('process.workflow.')) {
    // A WorkCalculation with a function_name attribute is a workfunction, without one a workchain.
    type = 'calculation.work.WorkCalculation.';
  }
  return { type, processType: '' };
}

/** Legacy 0.x calcjob states for the process states (STATE_MAPPING of aiida-core's migration 0038). */
function legacyState(attributes: Json): string {
  if (attributes.process_state === 'finished') return attributes.exit_status === 0 ? 'FINISHED' : 'FAILED';
  if (attributes.process_state === 'excepted') return 'PARSINGFAILED';
  return 'WITHSCHEDULER';
}

const renamed = (object: Json, from: string, to: string) => {
  if (from in object) {
    object[to] = object[from];
    delete object[from];
  }
};

/** The node's attributes as the version holds them. */
export function nodeAttributes(f: LegacyFormat, node: NodeRow): Json {
  const attributes = JSON.parse(node.attributes ?? '{}') as Json;
  const type = node.node_type;
  if (type.startsWith('process.') && ACTIVE.has(String(attributes.process_state))) {
    // AiiDA 1.x exported only sealed processes (dbexport's check_process_nodes_sealed): the generator's
    // running and waiting ones are written as killed.
    attributes.process_state = 'killed';
    attributes.sealed = true;
  }
  if (type.startsWith('data.core.code.')) {
    const local = type.includes('.portable.');
    const code: Json = {
      is_local: local,
      [local ? 'local_executable' : 'remote_exec_path']: attributes.filepath_executable,
      input_plugin: attributes.input_plugin,
      prepend_text: attributes.prepend_text,
      append_text: attributes.append_text,
    };
    if (f.v < 12) code.input_plugin = String(code.input_plugin).replace(/^core\./, '');
    return code;
  }
  if (f.v <= 3) {
    if (type.startsWith('process.')) {
      // Migration 0023 of aiida-core 1.x renamed these; 0040 renamed _sealed.
      renamed(attributes, 'process_label', '_process_label');
      renamed(attributes, 'sealed', '_sealed');
    }
    if (type === 'process.calculation.calcjob.CalcJobNode.') {
      attributes.state = legacyState(attributes);
      delete attributes.process_state;
      delete attributes.exit_status;
      renamed(attributes, 'resources', 'jobresource_params');
      renamed(attributes, 'parser_name', 'parser');
      renamed(attributes, 'environment_variables', 'custom_environment_variables');
    }
    if (type === 'data.core.array.trajectory.TrajectoryData.' && Array.isArray(attributes.symbols)) {
      // Migrations 0026-0027: the symbols were an array in the repository (see trajectorySymbols).
      attributes['array|symbols'] = [attributes.symbols.length];
      delete attributes.symbols;
    }
  }
  return attributes;
}

/** The node's extras as the version holds them (0.1-0.3 have none). */
export function nodeExtras(node: NodeRow): Json {
  return JSON.parse(node.extras ?? '{}') as Json;
}

/** The export_data row of a node. */
export function nodeRow(f: LegacyFormat, node: NodeRow): Json {
  const { type, processType } = nodeTypes(f, node);
  return {
    uuid: node.uuid,
    description: node.description,
    dbcomputer: node.dbcomputer_id,
    label: node.label,
    user: node.user_id,
    mtime: exportTime(node.mtime),
    ...(f.v <= 4 ? { nodeversion: 1, public: false } : {}),
    ctime: exportTime(node.ctime),
    ...(f.v <= 3 ? { type } : { process_type: processType, node_type: type }),
  };
}

/**
 * The `*_conversion` companion of attributes or extras (0.1-0.5): the same shape, null at every leaf except
 * datetimes ('date'); the generator writes no datetime values.
 */
export function conversionOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(conversionOf);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, conversionOf(v)]));
  return null;
}

/** Group type strings before migrations 0022 (0.4) and 0044 (0.9). */
const GROUP_TYPES: Record<string, [string, string]> = {
  core: ['', 'user'],
  'core.upf': ['data.upf.family', 'data.upf'],
  'core.import': ['aiida.import', 'auto.import'],
  'core.auto': ['autogroup.run', 'auto.run'],
};

export function groupRow(
  f: LegacyFormat,
  g: { uuid: string; label: string; type_string: string; time: string; description: string; user_id: number },
): Json {
  const old = GROUP_TYPES[g.type_string];
  const typeString =
    f.v <= 3 ? (old?.[0] ?? g.type_string) : f.v <= 8 ? (old?.[1] ?? g.type_string) : g.type_string;
  const common = { description: g.description, user: g.user_id, time: exportTime(g.time), uuid: g.uuid };
  return f.v <= 3
    ? { ...common, name: g.label, type: typeString }
    : { ...common, type_string: typeString, label: g.label };
}

export function computerRow(
  f: LegacyFormat,
  c: {
    uuid: string;
    label: string;
    hostname: string;
    description: string;
    scheduler_type: string;
    transport_type: string;
    metadata: string;
  },
): Json {
  const metadata = JSON.parse(c.metadata) as Json;
  // Migrations 0033 (text -> JSON, 0.4), 0036 (transport_params dropped, 0.5), v10 -> v11 (name -> label),
  // v11 -> v12 (core.slurm), v12 -> v13 (core.ssh).
  return {
    ...(f.v <= 10 ? { name: c.label } : {}),
    ...(f.v <= 3 ? { transport_params: '{}' } : f.v === 4 ? { transport_params: {} } : {}),
    description: c.description,
    hostname: c.hostname,
    ...(f.v <= 3 ? { enabled: true } : {}),
    transport_type: f.v <= 12 ? c.transport_type.replace(/^core\./, '') : c.transport_type,
    metadata: f.v <= 3 ? JSON.stringify(metadata) : metadata,
    scheduler_type: f.v <= 11 ? c.scheduler_type.replace(/^core\./, '') : c.scheduler_type,
    uuid: c.uuid,
    ...(f.v >= 11 ? { label: c.label } : {}),
  };
}

const OLD_LINK_TYPES: Record<string, string> = {
  input_calc: 'inputlink',
  input_work: 'inputlink',
  create: 'createlink',
  return: 'returnlink',
  call_calc: 'calllink',
  call_work: 'calllink',
};

export function linkRow(
  f: LegacyFormat,
  l: { input: string; output: string; label: string; type: string; input_type: string },
): Json {
  // Migration 0043 (0.8) renamed the calcfunction's default output label `_return` to `result`.
  const label =
    f.v < 8 && l.type === 'create' && l.label === 'result' && l.input_type.includes('.calcfunction.')
      ? '_return'
      : l.label;
  const row: Json = { output: l.output, label, input: l.input };
  if (f.linkTypes === 'old') row.type = OLD_LINK_TYPES[l.type] ?? 'unspecified';
  if (f.linkTypes === 'new') row.type = l.type;
  return row;
}

/** A numpy .npy array of short strings ('<U' dtype, as numpy saved TrajectoryData symbols). */
export function npyStrings(values: string[]): Buffer {
  const width = Math.max(1, ...values.map((v) => v.length));
  let header = `{'descr': '<U${width}', 'fortran_order': False, 'shape': (${values.length},), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const prefix = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, 0, 0]);
  prefix.writeUInt16LE(header.length, 8);
  const data = Buffer.alloc(values.length * width * 4);
  values.forEach((v, i) =>
    [...v].forEach((ch, j) => data.writeUInt32LE(ch.codePointAt(0)!, (i * width + j) * 4)),
  );
  return Buffer.concat([prefix, Buffer.from(header, 'latin1'), data]);
}
