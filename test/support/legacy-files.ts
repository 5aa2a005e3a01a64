/**
 * Small legacy archives (AiiDA 0.x/1.x JSON format) written by hand for tests: a zip or a tar.gz of the
 * given entries, and the records of a tiny export at 0.13 or 0.3 to fill them with.
 */
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import tarStream from 'tar-stream';
import yazl from 'yazl';

export type Entries = Record<string, string | Buffer>;

export async function writeLegacyZip(file: string, entries: Entries): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) {
    // A name ending in `/` is a folder entry, as AiiDA 0.12 to 1.1 wrote one for every folder.
    if (name.endsWith('/')) zip.addEmptyDirectory(name);
    else zip.addBuffer(Buffer.from(data), name);
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}

export async function writeLegacyTarGz(file: string, entries: Entries): Promise<void> {
  const pack = tarStream.pack();
  for (const [name, data] of Object.entries(entries)) pack.entry({ name }, Buffer.from(data));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  await writeFile(file, gzipSync(Buffer.concat(chunks)));
}

export const UUID = {
  code: 'c1879cbe-8f6f-4343-b3f7-df8ecbd4d403',
  calc: '3b429fd4-601c-4473-add5-7cbb76cf38cb',
  out: 'b4197406-cf07-4c89-a6da-a1f6ec75ab80',
  computer: '4f33c6fd-b624-47df-9ffb-a58f05d323af',
  group: 'bde385c0-c1d5-4c6e-95db-b1b26026c7fc',
};

const TIME = '2015-06-04T10:58:44.000000';

/** A code, a calculation using it and its output, one group, at export version 0.13 (or `version`). */
export function tinyExport(version = '0.13', aiida = '2.0.2') {
  const node = (uuid: string, node_type: string, process_type = '') => ({
    uuid,
    node_type,
    process_type,
    label: '',
    description: '',
    ctime: TIME,
    mtime: TIME,
    user: 1,
    dbcomputer: null,
  });
  const data = {
    export_data: {
      User: { '1': { email: 'a@b.c', first_name: 'A', last_name: 'B', institution: '' } },
      Computer: {
        '1': {
          uuid: UUID.computer,
          label: 'bellatrix',
          hostname: 'h',
          description: '',
          scheduler_type: 'core.slurm',
          transport_type: 'core.ssh',
          metadata: { default_mpiprocs_per_machine: 16 },
        },
      },
      Node: {
        '1': node(UUID.code, 'data.core.code.Code.'),
        '2': node(
          UUID.calc,
          'process.calculation.calcjob.CalcJobNode.',
          'aiida.calculations:quantumespresso.pw',
        ),
        '3': node(UUID.out, 'data.core.dict.Dict.'),
      },
      Group: {
        '5': {
          uuid: UUID.group,
          label: 'g',
          type_string: 'core',
          time: TIME,
          description: '',
          user: 1,
          extras: {},
        },
      },
    },
    node_attributes: {
      '1': { input_plugin: 'quantumespresso.pw' },
      '2': { sealed: true },
      '3': { energy: 40.0 },
    },
    node_extras: { '1': {}, '2': {}, '3': {} },
    links_uuid: [
      { input: UUID.code, output: UUID.calc, label: 'code', type: 'input_calc' },
      { input: UUID.calc, output: UUID.out, label: 'output_parameters', type: 'create' },
    ],
    groups_uuid: { [UUID.group]: [UUID.code, UUID.out] },
  };
  const metadata = { export_version: version, aiida_version: aiida };
  return { data, metadata };
}

/** The entries of an archive of `tinyExport()` (or of the given texts), with one repository file. */
export function tinyEntries(
  data: unknown = tinyExport().data,
  metadata: unknown = tinyExport().metadata,
): Entries {
  const u = UUID.calc;
  return {
    'metadata.json': typeof metadata === 'string' ? metadata : JSON.stringify(metadata),
    'data.json': typeof data === 'string' ? data : JSON.stringify(data),
    [`nodes/${u.slice(0, 2)}/${u.slice(2, 4)}/${u.slice(4)}/raw_input/aiida.in`]: '&CONTROL\n/\n',
  };
}
