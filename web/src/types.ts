/** The records of the v4 API the explorer reads (fields as `/api/v4/nodes/<uuid>/` and friends answer them). */

/** One node as the node endpoints answer it; `description` and `dbcomputer_id` come from the querybuilder. */
export interface NodeSummary {
  id: number;
  uuid: string;
  node_type: string;
  process_type: string | null;
  label: string;
  description: string;
  ctime: string;
  mtime: string;
  user_id: number;
  dbcomputer_id: number | null;
  full_type?: string;
  [k: string]: unknown;
}

export interface User {
  id: number;
  first_name: string;
  last_name: string;
  institution: string;
  email?: string;
}

export interface Computer {
  id: number;
  uuid: string;
  label: string;
  hostname: string;
  description: string;
  scheduler_type: string;
  transport_type: string;
  metadata?: Record<string, unknown>;
}

export interface Group {
  id: number;
  uuid: string;
  label: string;
  description: string;
  type_string: string;
  time: string;
  user_id: number;
  extras?: Record<string, unknown>;
}

/** A node of `/nodes/full_types_count/`: a namespace of types with the number of nodes under it. */
export interface TypeCount {
  full_type: string;
  label: string;
  namespace: string;
  path: string;
  counter: number;
  subspaces: TypeCount[];
}

export interface Statistics {
  total: number;
  types: Record<string, number>;
  ctime_by_day: Record<string, number>;
}

export interface ServerInfo {
  API_major_version: string;
  API_minor_version: string;
  API_revision_version: string;
  API_prefix: string;
  AiiDA_version: string;
}

/** One link of `/nodes/<uuid>/links/incoming|outgoing/`: the linked node and the link's label and type. */
export interface LinkedNode extends NodeSummary {
  link_label: string;
  link_type: string;
}

export interface Comment {
  id: number;
  uuid: string;
  ctime: string;
  mtime: string;
  content: string;
  user_id: number;
  [k: string]: unknown;
}
