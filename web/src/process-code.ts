/**
 * The code a process ran and the computer it ran on: what a scientist asks first of a calculation. The v4 API
 * gives a code's computer only through the querybuilder (a code node's `dbcomputer`), so that is one more query.
 */
import type { Api } from './api.js';

export interface CodeOnComputer {
  code: { uuid: string; id: number; label: string };
  computer?: { uuid: string; label: string };
}

export async function computerOfNode(
  api: Api,
  id: number,
  signal?: AbortSignal,
): Promise<{ uuid: string; label: string } | undefined> {
  const answer = await api.query<{ m?: { uuid: string; label: string }[] }>(
    {
      path: [
        { entity_type: 'node.Node.', orm_base: 'node', tag: 'n' },
        { entity_type: 'computer', orm_base: 'computer', tag: 'm', with_node: 'n' },
      ],
      filters: { n: { id: { '==': id } } },
      project: { m: ['uuid', 'label'] },
      limit: 1,
    },
    { signal },
  );
  return answer.data.m?.[0];
}

/** The first code among the process's inputs (a workflow's may be in a namespace: `pw__code`), if any. */
export async function codeOfProcess(
  api: Api,
  uuid: string,
  signal?: AbortSignal,
): Promise<CodeOnComputer | undefined> {
  const answer = await api.get<{ incoming: { uuid: string; id: number; label: string }[] }>(
    `/nodes/${uuid}/links/incoming/page/1/`,
    `perpage=1&orderby=id&full_type=${encodeURIComponent('"data.core.code.%|%"')}`,
    { signal },
  );
  const code = answer.data.incoming[0];
  if (code === undefined) return undefined;
  return { code, computer: await computerOfNode(api, code.id, signal) };
}
