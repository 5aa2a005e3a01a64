/**
 * An export as a zip stream: metadata.json, `repo/<sha256>` for every file, then db.sqlite3, the entries
 * aiida-core's sqlite_zip writer makes (any order reads the same: aiida-core reads through the central
 * directory). The database comes last so that the bytes start at once: the files stream while it is written.
 * Each repository file is opened only when its turn comes, so that the stream holds one file at a time; the
 * zip is produced as the client reads it.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import type { Repository } from '../storage/types.js';
import type { ExportPlan } from './plan.js';
import { EXPORT_RULES } from './rules.js';
import { EXPORT_VERSION } from '../domain/sqlite-zip-schema.js';

/** metadata.json as `verdi archive create` writes it, with its creation_parameters. */
export function archiveMetadata(
  plan: ExportPlan,
  aiidaVersion: string,
  now = new Date(),
): Record<string, unknown> {
  const start = plan.start;
  const entities =
    start === undefined
      ? null
      : Object.fromEntries(
          (
            [
              ['group', start.groups],
              ['node', start.nodes],
            ] as const
          ).filter(([, uuids]) => uuids.length > 0),
        );
  return {
    export_version: EXPORT_VERSION,
    aiida_version: aiidaVersion,
    key_format: 'sha256',
    compression: 6,
    ctime: now.toISOString().replace('Z', ''),
    creation_parameters: {
      entities_starting_set: entities,
      include_authinfos: false,
      include_comments: plan.includeComments,
      include_logs: plan.includeLogs,
      graph_traversal_rules: Object.fromEntries(
        EXPORT_RULES.map((r) => [r.name, plan.rules[r.name] ?? r.default]),
      ),
    },
  };
}

/** The zip of an export whose database is being written: `database` gives its file once it is complete. */
export function archiveStream(
  plan: ExportPlan,
  metadata: Record<string, unknown>,
  database: Promise<string>,
  repository: Repository,
): Readable {
  const zip = new yazl.ZipFile();
  const stream = zip.outputStream as Readable;
  // The file being read now: stopped with the stream, so that a client gone stops the reading too.
  let current: Readable | undefined;
  const opened = (cb: (err: unknown, s: NodeJS.ReadableStream) => void, source: Readable) => {
    current = source;
    if (stream.destroyed) source.destroy();
    else cb(null, source);
  };
  zip.on('error', (error: Error) => stream.destroy(error));
  stream.once('close', () => current?.destroy());
  // Stored, not deflated: it is small, and aiida-core writes it so.
  zip.addBuffer(Buffer.from(JSON.stringify(metadata)), 'metadata.json', { compress: false });
  for (const [key, size] of plan.files) {
    zip.addReadStreamLazy(`repo/${key}`, { compressionLevel: 6, size }, (cb) => {
      repository
        .get(key)
        .then(async (object) => {
          if (object === undefined) throw new Error(`the repository no longer holds ${key}`);
          opened(cb, await object.stream());
        })
        .catch((error: unknown) => cb(error, undefined as never));
    });
  }
  zip.addReadStreamLazy('db.sqlite3', { compressionLevel: 6 }, (cb) => {
    database.then(
      (file) => opened(cb, createReadStream(file)),
      (error: unknown) => cb(error, undefined as never),
    );
  });
  zip.end();
  return stream;
}
