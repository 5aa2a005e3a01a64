/** What the catalog keeps of each source a folder or a sources file names: enough to open it, nothing open. */
import type { SourceSpec } from './catalog.js';

export interface PortalSpec extends SourceSpec {
  /** An archive file or a core.sqlite_dos folder. */
  path?: string;
  /** An AiiDA profile of AiiDA's config.json. */
  profile?: string;
  /** A core.psql_dos database, its file repository folder and its read replicas. */
  url?: string;
  repository?: string;
  replicas?: string[];
}
