/**
 * A process node's attributes as an export writes them: without `checkpoints`, as aiida-core's
 * `strip_checkpoints` (the default of `verdi archive create`) leaves them. A checkpoint is the pickled state of a
 * running process: of no use to anyone importing it, and often most of the node's size.
 */
import { toJson } from '../util/exact-json.js';
import { parseMarked } from '../util/json-text.js';

export function stripCheckpoints(value: unknown, nodeType: unknown): unknown {
  if (typeof value !== 'string' || !value.includes('"checkpoints"')) return value;
  if (!String(nodeType).startsWith('process.')) return value;
  const attributes = parseMarked(value);
  if (attributes === null || typeof attributes !== 'object' || !('checkpoints' in attributes)) return value;
  delete (attributes as Record<string, unknown>).checkpoints;
  return toJson(attributes);
}
