/**
 * Failed processes: excepted or killed, or finished with a non-zero exit status. The v4 list endpoints cannot
 * filter on attributes, so the querybuilder finds them (their number, and the pks of the newest).
 */
import type { Api } from './api.js';

const FAILED = {
  path: [{ entity_type: 'process.ProcessNode.', orm_base: 'node', tag: 'p', subclassing: true }],
  filters: {
    p: {
      or: [
        { 'attributes.process_state': { in: ['excepted', 'killed'] } },
        { 'attributes.exit_status': { '>': 0 } },
      ],
    },
  },
};

export async function failedCount(api: Api, signal?: AbortSignal): Promise<number> {
  const answer = await api.query<{ p?: { id: number }[] }>(
    { ...FAILED, project: { p: [{ id: { func: 'count' } }] } },
    { signal },
  );
  const n = Number(answer.data.p?.[0]?.id);
  if (!Number.isFinite(n)) throw new Error('The count of failed processes is not a number.');
  return n;
}

/** The pks of the newest `limit` failed processes. */
export async function failedPks(api: Api, limit: number, signal?: AbortSignal): Promise<number[]> {
  const answer = await api.query<{ p?: { id: number }[] }>(
    { ...FAILED, project: { p: ['id'] }, order_by: { p: { id: 'desc' } }, limit },
    { signal },
  );
  return (answer.data.p ?? []).map((row) => row.id);
}
