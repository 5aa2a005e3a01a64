/**
 * Export versions 0.4 -> 0.13 and then -> main_0001, record by record, as aiida-core 2.x's migrations do them
 * (`src/aiida/storage/sqlite_zip/migrations/legacy/v04_to_v05.py` ... `v12_to_v13.py`, `legacy_to_main.py`
 * and the main_0000a step that replaced nulls). Each function takes a record at its archive's version
 * (`minor`: 4 for 0.4 ... 13) and gives the row of the SQLite copy.
 */
import { RawJson } from '../../../util/exact-json.js';

type Rec = Record<string, unknown>;

/** A datetime of data.json (`2015-06-04T10:58:44.000000`) as the copy stores it; null: the conversion's time. */
export function storedTime(value: unknown, now: string): string {
  if (typeof value !== 'string') return now;
  const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?/.exec(value);
  if (!m) return now;
  return `${m[1]} ${m[2]}.${(m[3] ?? '').padEnd(6, '0')}`;
}

/** Now, as the copy stores times (UTC, microseconds). */
export function conversionTime(date = new Date()): string {
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 23)}000`;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const intOrNull = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : null;

/** 0.5 -> 0.6: datetimes in attributes and extras got back their UTC offset, as their conversion says. */
export function withTimezones(value: unknown, conversion: unknown): unknown {
  if (conversion === null || conversion === undefined) return value;
  if (Array.isArray(value)) {
    const convs = Array.isArray(conversion) ? conversion : [];
    // Python's zip: as many as the shorter of the two.
    const n = Array.isArray(conversion) ? Math.min(value.length, convs.length) : value.length;
    return value.slice(0, n).map((v, i) => withTimezones(v, convs[i]));
  }
  if (typeof value === 'object' && value !== null && !(value instanceof RawJson)) {
    const out: Rec = {};
    const convs = (typeof conversion === 'object' ? conversion : {}) as Rec;
    for (const [key, v] of Object.entries(value as Rec)) out[key] = withTimezones(v, convs[key]);
    return out;
  }
  if (conversion === 'date') return `${String(value)}+00:00`;
  return value;
}

/** Legacy JobCalculation states -> process state, exit status, process status (aiida-core's calc_state.py). */
const STATES: Record<string, [string, number | null, string | null]> = {
  NEW: ['killed', null, 'NEW'],
  TOSUBMIT: ['killed', null, 'TOSUBMIT'],
  SUBMITTING: ['killed', null, 'SUBMITTING'],
  WITHSCHEDULER: ['killed', null, 'WITHSCHEDULER'],
  COMPUTED: ['killed', null, 'COMPUTED'],
  RETRIEVING: ['killed', null, 'RETRIEVING'],
  PARSING: ['killed', null, 'PARSING'],
  SUBMISSIONFAILED: ['excepted', null, 'SUBMISSIONFAILED'],
  RETRIEVALFAILED: ['excepted', null, 'RETRIEVALFAILED'],
  PARSINGFAILED: ['excepted', null, 'PARSINGFAILED'],
  FAILED: ['finished', 2, null],
  FINISHED: ['finished', 0, null],
};

const CALC_JOB = 'process.calculation.calcjob.CalcJobNode.';

/** 0.5 -> 0.6 and 0.6 -> 0.7 on a node's attributes (only where they exist, as aiida-core). */
export function attributesTo07(minor: number, nodeType: string, attrs: Rec): string | undefined {
  if (minor < 6 && nodeType === CALC_JOB) {
    const state = attrs.state;
    if (typeof state === 'string' && state in STATES) {
      delete attrs.state;
      const [processState, exitStatus, status] = STATES[state]!;
      if (exitStatus !== null) attrs.exit_status = exitStatus;
      attrs.process_state = processState;
      if (status !== null) attrs.process_status = `Legacy \`JobCalculation\` with state \`${status}\``;
      attrs.process_label = 'Legacy JobCalculation';
    }
  }
  if (minor < 7 && nodeType.startsWith('process.')) {
    const state = attrs.process_state;
    if (state === 'created' || state === 'running' || state === 'waiting') {
      return `process node in the active state "${state}", which an export never holds`;
    }
    attrs.sealed = true;
    for (const key of ['_sealed', '_finished', '_failed', '_aborted', '_do_abort']) delete attrs[key];
  }
  return undefined;
}

const DATA_TYPES = new Set(
  (
    'array.ArrayData array.bands.BandsData array.kpoints.KpointsData array.projection.ProjectionData ' +
    'array.trajectory.TrajectoryData array.xy.XyData base.BaseData bool.Bool cif.CifData code.Code dict.Dict ' +
    'float.Float folder.FolderData int.Int list.List numeric.NumericData orbital.OrbitalData remote.RemoteData ' +
    'remote.stash.RemoteStashData remote.stash.folder.RemoteStashFolderData singlefile.SinglefileData str.Str ' +
    'structure.StructureData upf.UpfData'
  ).split(' '),
);
const PROCESS_TYPES: Record<string, string> = {
  'aiida.calculations:arithmetic.add': 'aiida.calculations:core.arithmetic.add',
  'aiida.calculations:templatereplacer': 'aiida.calculations:core.templatereplacer',
  'aiida.workflows:arithmetic.add_multiply': 'aiida.workflows:core.arithmetic.add_multiply',
  'aiida.workflows:arithmetic.multiply_add': 'aiida.workflows:core.arithmetic.multiply_add',
};

/** 0.11 -> 0.12: node types of aiida-core's own data classes moved under `data.core.`. */
export function nodeTypeAt12(minor: number, type: string): string {
  if (minor >= 12 || !type.startsWith('data.')) return type;
  const name = type.slice('data.'.length, -1);
  return type.endsWith('.') && DATA_TYPES.has(name) ? `data.core.${name}.` : type;
}

export function processTypeAt12(minor: number, type: unknown): unknown {
  if (minor >= 12 || typeof type !== 'string') return type;
  return PROCESS_TYPES[type] ?? type;
}

export interface NodeRow {
  id: number;
  uuid: string;
  node_type: string;
  process_type: string | null;
  label: string;
  description: string;
  ctime: string;
  mtime: string;
  dbcomputer_id: number | null;
  user_id: number | null;
}

/** A node's record (at 0.4 or later, node_type set) -> its row but for attributes, extras and files. */
export function nodeRow(minor: number, pk: number, rec: Rec, now: string): NodeRow {
  return {
    id: pk,
    uuid: text(rec.uuid),
    node_type: nodeTypeAt12(minor, text(rec.node_type)),
    process_type: (processTypeAt12(minor, rec.process_type) as string | null | undefined) ?? null,
    label: text(rec.label),
    description: text(rec.description),
    ctime: storedTime(rec.ctime, now),
    mtime: storedTime(rec.mtime, now),
    dbcomputer_id: intOrNull(rec.dbcomputer),
    user_id: intOrNull(rec.user),
  };
}

const SCHEDULERS = new Set(['direct', 'lsf', 'pbspro', 'sge', 'slurm', 'torque']);
const TRANSPORTS = new Set(['local', 'ssh']);

export function computerRow(minor: number, pk: number, rec: Rec) {
  const label = minor < 11 && 'name' in rec ? rec.name : rec.label;
  let scheduler = text(rec.scheduler_type);
  if (minor < 12 && SCHEDULERS.has(scheduler)) scheduler = `core.${scheduler}`;
  let transport = text(rec.transport_type);
  if (minor < 13 && TRANSPORTS.has(transport)) transport = `core.${transport}`;
  return {
    id: pk,
    uuid: text(rec.uuid),
    label: text(label),
    hostname: text(rec.hostname),
    description: text(rec.description),
    scheduler_type: scheduler,
    transport_type: transport,
    metadata: rec.metadata ?? {},
  };
}

const GROUP_TYPES: Record<string, string> = {
  user: 'core',
  'data.upf': 'core.upf',
  'auto.import': 'core.import',
  'auto.run': 'core.auto',
};

export function groupRow(minor: number, pk: number, rec: Rec, now: string) {
  let type = rec.type_string;
  if (minor < 9 && typeof type === 'string') type = GROUP_TYPES[type] ?? type;
  return {
    id: pk,
    uuid: text(rec.uuid),
    label: text(rec.label),
    // main_0000a: a null type became 'core'.
    type_string: type === null || type === undefined ? 'core' : String(type),
    time: storedTime(rec.time, now),
    description: text(rec.description),
    extras: rec.extras ?? {},
    user_id: intOrNull(rec.user),
  };
}

export function userRow(pk: number, rec: Rec) {
  return {
    id: pk,
    email: text(rec.email),
    first_name: text(rec.first_name),
    last_name: text(rec.last_name),
    institution: text(rec.institution),
  };
}

export function logRow(pk: number, rec: Rec, now: string, parse: (text: string) => unknown) {
  const metadata = typeof rec.metadata === 'string' ? parse(rec.metadata) : rec.metadata;
  return {
    id: pk,
    uuid: text(rec.uuid),
    time: storedTime(rec.time, now),
    loggername: text(rec.loggername),
    levelname: text(rec.levelname),
    dbnode_id: intOrNull(rec.dbnode),
    message: text(rec.message),
    metadata: metadata ?? {},
  };
}

export function commentRow(pk: number, rec: Rec, now: string) {
  return {
    id: pk,
    uuid: text(rec.uuid),
    dbnode_id: intOrNull(rec.dbnode),
    ctime: storedTime(rec.ctime, now),
    mtime: storedTime(rec.mtime, now),
    user_id: intOrNull(rec.user),
    content: text(rec.content),
  };
}

/** 0.7 -> 0.8: the default link label `_return` became `result`. */
export function linkLabel(minor: number, label: unknown): string {
  const l = text(label);
  return minor < 8 && l === '_return' ? 'result' : l;
}
