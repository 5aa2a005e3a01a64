/** The generic parts of a node's page: its attributes, extras, derived properties, comments and downloads. */
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import type { Comment, NodeSummary } from '../types.js';
import { Await } from '../components/Await.js';
import { DateTime } from '../components/DateTime.js';
import { JsonTree } from '../components/JsonTree.js';

export function NodeContents({ uuid, part }: { uuid: string; part: 'attributes' | 'extras' }) {
  const { api } = useExplorer();
  const loaded = useLoad(
    (signal) =>
      api.get<Record<string, Record<string, unknown>>>(`/nodes/${uuid}/contents/${part}/`, undefined, {
        signal,
      }),
    [api, uuid, part],
  );
  return (
    <Await loaded={loaded} what={`the ${part}`}>
      {(answer) => {
        const value = answer.data[part] ?? {};
        return Object.keys(value).length === 0 ? <p class="muted">No {part}.</p> : <JsonTree value={value} />;
      }}
    </Await>
  );
}

export function Derived({ uuid }: { uuid: string }) {
  const { api } = useExplorer();
  const loaded = useLoad(
    (signal) =>
      api.get<{ derived_properties: Record<string, unknown> }>(
        `/nodes/${uuid}/contents/derived_properties/`,
        undefined,
        {
          signal,
        },
      ),
    [api, uuid],
  );
  return (
    <Await loaded={loaded} what="the derived properties">
      {(answer) => {
        const value = answer.data.derived_properties ?? {};
        return Object.keys(value).length === 0 ? (
          <p class="muted">No derived properties for this type.</p>
        ) : (
          <JsonTree value={value} />
        );
      }}
    </Await>
  );
}

export function Comments({ uuid }: { uuid: string }) {
  const { api } = useExplorer();
  const loaded = useLoad(
    (signal) => api.get<{ comments: Comment[] }>(`/nodes/${uuid}/contents/comments/`, undefined, { signal }),
    [api, uuid],
  );
  return (
    <Await loaded={loaded} what="the comments">
      {(answer) =>
        answer.data.comments.length === 0 ? (
          <p class="muted">No comments.</p>
        ) : (
          <ul class="comments">
            {answer.data.comments.map((c) => (
              <li key={c.uuid ?? c.id}>
                <p class="comment-head">
                  <DateTime value={c.ctime} /> · {String(c.user_email ?? c.user_id ?? '')}
                </p>
                <p class="comment-text">{c.content}</p>
              </li>
            ))}
          </ul>
        )
      }
    </Await>
  );
}

/** The formats the API exports this node's type in, as download links. */
export function Downloads({ node }: { node: NodeSummary }) {
  const { api } = useExplorer();
  const loaded = useLoad(
    (signal) => api.get<Record<string, string[]>>('/nodes/download_formats/', undefined, { signal }),
    [api],
  );
  return (
    <Await loaded={loaded} what="the download formats">
      {(answer) => {
        const formats = answer.data[node.full_type ?? `${node.node_type}|`] ?? [];
        if (formats.length === 0) return <p class="muted">The API exports no format of this type.</p>;
        return (
          <ul class="downloads">
            {formats.map((format) => (
              <li key={format}>
                <a
                  href={api.url(
                    `/nodes/${node.uuid}/download/`,
                    `download_format=${encodeURIComponent(format)}`,
                  )}
                  download
                >
                  {format}
                </a>
              </li>
            ))}
          </ul>
        );
      }}
    </Await>
  );
}
