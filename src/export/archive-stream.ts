/**
 * An export as a zip stream: metadata.json, db.sqlite3, then `repo/<sha256>` for every file, the entries
 * aiida-core's sqlite_zip writer makes (any order reads the same: aiida-core reads through the central
 * directory). It is made once the database is written (in a temporary file, see writer.ts), so that from its
 * first byte it runs at the pace of deflating, which the database, deflated on several threads, is most of.
 * Each repository file is opened only when its turn comes, so that the stream holds one file at a time.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Repository } from '../storage/types.js';
import type { ExportPlan } from './plan.js';
import { EXPORT_RULES } from './rules.js';
import { EXPORT_VERSION } from '../domain/sqlite-zip-schema.js';
import { zipStream, type ZipPart } from './zip-stream.js';

/** The compression level aiida-core writes archives with (and metadata.json says). */
const LEVEL = 6;

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
    compression: LEVEL,
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

/** The zip of an export whose database is the complete file `database`. */
export function archiveStream(
  plan: ExportPlan,
  metadata: Record<string, unknown>,
  database: string,
  repository: Repository,
): Readable {
  async function* parts(): AsyncGenerator<ZipPart> {
    // Stored, not deflated: it is small, and aiida-core writes it so.
    yield { name: 'metadata.json', stored: Buffer.from(JSON.stringify(metadata)) };
    yield { name: 'db.sqlite3', open: async () => createReadStream(database, { highWaterMark: 1 << 20 }) };
    for (const [key, size] of plan.files) {
      yield {
        name: `repo/${key}`,
        size,
        open: async () => {
          const object = await repository.get(key);
          if (object === undefined) throw new Error(`the repository no longer holds ${key}`);
          return object.stream();
        },
      };
    }
  }
  return zipStream(parts(), { level: LEVEL });
}
