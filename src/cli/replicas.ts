/**
 * `--replica URL` belongs to the PostgreSQL source named before it on the command line (a postgres:// URL or a
 * `--profile` name), or to the first PostgreSQL source when none comes before it.
 */
import { CliError } from './errors.js';

const POSTGRES_URL = /^postgres(ql)?:\/\//;

/** Replica URLs by source: a postgres:// URL as given, or `profile:NAME`. */
export type ReplicasBySource = Record<string, string[]>;

interface Word {
  kind: 'source' | 'replica';
  value: string;
}

/** The sources and replicas of the arguments, in their order. */
function words(argv: string[]): Word[] {
  const out: Word[] = [];
  let profiles = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s) : [arg];
    if (flag === '--replica') {
      const url = inline ?? argv[++i];
      if (url === undefined || !POSTGRES_URL.test(url)) {
        throw new CliError(`--replica takes a postgres:// URL, not ${JSON.stringify(url ?? '')}`);
      }
      out.push({ kind: 'replica', value: url });
      profiles = false;
    } else if (flag === '--profile') {
      if (inline !== undefined) out.push({ kind: 'source', value: `profile:${inline}` });
      profiles = inline === undefined;
    } else if (arg.startsWith('-')) {
      profiles = false;
    } else if (profiles) {
      out.push({ kind: 'source', value: `profile:${arg}` });
    } else if (POSTGRES_URL.test(arg)) {
      out.push({ kind: 'source', value: arg });
    }
  }
  return out;
}

export function replicasBySource(argv: string[]): ReplicasBySource {
  const found: ReplicasBySource = {};
  const all = words(argv);
  const first = all.find((w) => w.kind === 'source')?.value;
  let source: string | undefined;
  for (const word of all) {
    if (word.kind === 'source') source = word.value;
    else {
      const owner = source ?? first;
      if (owner === undefined) {
        throw new CliError(
          '--replica needs a PostgreSQL source: a postgres:// URL or a core.psql_dos --profile',
        );
      }
      (found[owner] ??= []).push(word.value);
    }
  }
  return found;
}
