/**
 * What the index (`/sources/`) says of a source, shared by the serving processes of a server through small files
 * of the cache folder (`source-facts/`). Each serving process opens sources of its own, so from its memory alone
 * the index answered by one process said a source was open with its node count and the next said it was closed
 * with none, request after request. Whichever process opens a source writes what it learnt (node count, AiiDA and
 * export versions, kind) under the source's name and version; the others read it when they have not opened the
 * source themselves. `open` is then "opened by this server since it started" (the file names the start, the
 * SERVING_RUN of src/cli/serve.ts), the same in every process.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceKind, SourceSpec } from './catalog.js';

export interface SourceFacts {
  nodes: number | null;
  aiidaVersion: string | null;
  exportVersion: string | null;
  kind: SourceKind;
}

export class SharedFacts {
  constructor(
    private readonly dir: string,
    /** This start of the server: facts written by another start say the source was opened then, not now. */
    private readonly run: string,
  ) {}

  private file(spec: SourceSpec): string {
    const key = createHash('sha256').update(`${spec.name}\0${spec.version}\0${spec.origin}`).digest('hex');
    return join(this.dir, `${key.slice(0, 32)}.json`);
  }

  /** Written whole or not at all (a rename), so that a reader never sees half of it. */
  write(spec: SourceSpec, facts: SourceFacts): void {
    const file = this.file(spec);
    try {
      mkdirSync(this.dir, { recursive: true });
      const partial = `${file}.${process.pid}`;
      writeFileSync(partial, JSON.stringify({ ...facts, run: this.run }));
      renameSync(partial, file);
    } catch {
      // The index then says only what this process knows; serving goes on.
    }
  }

  /** The facts another process wrote of this very source (name and version), and whether it did so in this start. */
  read(spec: SourceSpec): (SourceFacts & { thisRun: boolean }) | undefined {
    try {
      const facts = JSON.parse(readFileSync(this.file(spec), 'utf8')) as SourceFacts & { run?: string };
      return { ...facts, thisRun: facts.run === this.run };
    } catch {
      return undefined;
    }
  }
}
