/**
 * The query string of `GET /export/`: which nodes and groups, the traversal rules, what else to include, and
 * whether only to say what would be written. Every mistake is a 400 (414 for a query string past its bound)
 * that names the parameter and what it takes.
 */
import { HttpError } from '../rest/errors.js';
import { defaultRules, EXPORT_RULES, type RuleValues } from './rules.js';

/** Most UUIDs of one request, nodes and groups together. */
export const MAX_UUIDS = 1_000;
/** Longest query string read (Node's own bound on the request line and headers is 16 KiB). */
export const MAX_QUERY_CHARS = 64 * 1024;

export interface ExportRequest {
  nodes: string[];
  groups: string[];
  rules: RuleValues;
  includeComments: boolean;
  includeLogs: boolean;
  dryRun: boolean;
  /** `?profile=NAME` (quoted or not, as the v4 API takes it): the source, at the plain root of a server of several. */
  profile?: string;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const RULE_NAMES = new Map(EXPORT_RULES.map((r) => [r.name, r]));
const OTHER = ['nodes', 'groups', 'include_comments', 'include_logs', 'dry_run', 'profile'];

export function readExportRequest(rawQuery: string): ExportRequest {
  if (rawQuery.length > MAX_QUERY_CHARS)
    throw new HttpError(
      414,
      `the query string is ${rawQuery.length} characters, more than the ${MAX_QUERY_CHARS} read; ask for fewer nodes at once or export a group`,
    );
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(rawQuery);
  } catch {
    throw new HttpError(400, 'the query string cannot be read; give nodes=<uuid>,... and groups=<uuid>,...');
  }
  const rules = defaultRules();
  let includeComments = true;
  let includeLogs = true;
  let dryRun = false;
  let profile: string | undefined;
  const nodes: string[] = [];
  const groups: string[] = [];
  for (const [key, value] of params) {
    if (key === 'nodes' || key === 'groups') (key === 'nodes' ? nodes : groups).push(...uuids(key, value));
    else if (key === 'include_comments') includeComments = flag(key, value);
    else if (key === 'include_logs') includeLogs = flag(key, value);
    else if (key === 'dry_run') dryRun = flag(key, value, true);
    else if (key === 'profile') profile = value.replace(/^"(.*)"$/, '$1');
    else {
      const rule = RULE_NAMES.get(key);
      if (rule === undefined)
        throw new HttpError(
          400,
          `unknown parameter "${key}"; /export/ takes ${OTHER.join(', ')} and the rules ${EXPORT_RULES.filter(
            (r) => r.toggleable,
          )
            .map((r) => r.name)
            .join(', ')}`,
        );
      const follow = flag(key, value);
      if (!rule.toggleable && follow !== rule.default)
        throw new HttpError(
          400,
          `the rule ${key} cannot be changed: it is always ${String(rule.default)}, as in aiida-core, so that the exported graph stays consistent`,
        );
      rules[key] = follow;
    }
    if (nodes.length + groups.length > MAX_UUIDS)
      throw new HttpError(
        400,
        `more than ${MAX_UUIDS} UUIDs in one request; put the nodes in a group and export the group, or ask in parts`,
      );
  }
  if (nodes.length === 0 && groups.length === 0)
    throw new HttpError(
      400,
      'nothing to export: give nodes=<uuid>,... and/or groups=<uuid>,... (or GET /export/all.aiida for everything)',
    );
  return {
    nodes: unique(nodes),
    groups: unique(groups),
    rules,
    includeComments,
    includeLogs,
    dryRun,
    profile,
  };
}

function uuids(key: string, value: string): string[] {
  const out: string[] = [];
  for (const part of value.split(',')) {
    const text = part.trim();
    if (text === '') continue;
    if (!UUID.test(text))
      throw new HttpError(
        400,
        `${key}: "${text.slice(0, 60)}" is not a UUID; give full UUIDs (36 characters) separated by commas`,
      );
    out.push(dashed(text.toLowerCase()));
  }
  return out;
}

function dashed(hex: string): string {
  const h = hex.replace(/-/g, '');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function flag(key: string, value: string, numbers = false): boolean {
  const v = value.toLowerCase();
  if (v === 'true' || (numbers && v === '1')) return true;
  if (v === 'false' || (numbers && v === '0')) return false;
  throw new HttpError(
    400,
    `${key} must be true or false${numbers ? ' (or 1 or 0)' : ''}, not "${value.slice(0, 40)}"`,
  );
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
