/** A node's download in a format, read through the JSON envelope (`download=false`) so errors come as API errors. */
import type { Api } from '../../api.js';

export async function downloadText(
  api: Api,
  uuid: string,
  format: string,
  signal?: AbortSignal,
): Promise<string> {
  const answer = await api.get<{ download?: { data?: unknown } }>(
    `/nodes/${uuid}/download/`,
    `download_format=${encodeURIComponent(format)}&download=false`,
    { signal },
  );
  const data = answer.data.download?.data;
  if (typeof data !== 'string') throw new Error(`the ${format} download of this node holds no text`);
  return data;
}

export async function downloadJson<T>(api: Api, uuid: string, signal?: AbortSignal): Promise<T> {
  const text = await downloadText(api, uuid, 'json', signal);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error('the json download of this node is not valid JSON');
  }
}
