/**
 * A browser of a folder tree of files: a node's repository (`repoFiles`), or a calcjob's input and output files
 * (the by-type views give their own `list`/`fileUrl`). Folders open in place; a file previews as text or image,
 * and downloads.
 */
import { useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.js';
import { useLoad } from '../hooks.js';
import { formatBytes } from '../format.js';
import { Await } from './Await.js';
import { ErrorMessage } from './Problem.js';
import { Loading } from './Loading.js';
import { useUrlParam } from '../url-state.js';

export interface FileEntry {
  name: string;
  type: 'FILE' | 'DIRECTORY';
}

export interface FileSource {
  /** The entries of a folder (`''` is the top). */
  list(folder: string, signal: AbortSignal): Promise<FileEntry[]>;
  /** Where a file's bytes are. */
  fileUrl(path: string): string;
}

/** A quoted value of the v4 query language, encoded for a URL. */
const quoted = (value: string) => encodeURIComponent(`"${value}"`);

/** The repository of a node: `/nodes/<uuid>/repo/list/` and `/repo/contents/`. */
export function repoFiles(api: Api, uuid: string): FileSource {
  return {
    list: async (folder, signal) => {
      const query = folder === '' ? undefined : `filename=${quoted(folder)}`;
      const answer = await api.get<{ repo_list: FileEntry[] }>(`/nodes/${uuid}/repo/list/`, query, {
        signal,
      });
      return answer.data.repo_list;
    },
    fileUrl: (path) => api.url(`/nodes/${uuid}/repo/contents/`, `filename=${quoted(path)}`),
  };
}

const IMAGE = /\.(png|jpe?g|gif|svg|webp)$/i;
const PREVIEW_BYTES = 200 * 1024;

export function FileBrowser({
  source,
  title = 'Files',
  urlKey,
  hash,
}: {
  source: FileSource;
  title?: string;
  /** The URL parameter that keeps the file previewed (a reload shows it again); none keeps it in the page. */
  urlKey?: string;
  /** The anchor of the folded part the browser is in, set with the parameter. */
  hash?: string;
}) {
  const [local, setLocal] = useState<string | undefined>(undefined);
  const [kept, setKept] = useUrlParam(urlKey, hash);
  const [selected, setSelected] = urlKey === undefined ? [local, setLocal] : [kept, setKept];
  return (
    <div class="files">
      <div class="file-tree" role="group" aria-label={title}>
        <Folder source={source} path="" selected={selected} onSelect={setSelected} />
      </div>
      {selected !== undefined && <Preview key={selected} source={source} path={selected} />}
    </div>
  );
}

interface FolderProps {
  source: FileSource;
  path: string;
  selected?: string;
  onSelect(path: string): void;
}

function Folder({ source, path, selected, onSelect }: FolderProps) {
  const loaded = useLoad((signal) => source.list(path, signal), [source, path]);
  return (
    <Await loaded={loaded} what={path === '' ? 'the file list' : path}>
      {(entries) =>
        entries.length === 0 ? (
          <p class="muted">{path === '' ? 'No files.' : 'Empty folder.'}</p>
        ) : (
          <ul>
            {[...entries]
              .sort((a, b) =>
                a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'DIRECTORY' ? -1 : 1,
              )
              .map((entry) => {
                const full = path === '' ? entry.name : `${path}/${entry.name}`;
                return entry.type === 'DIRECTORY' ? (
                  <FolderEntry key={full} {...{ source, selected, onSelect }} path={full} name={entry.name} />
                ) : (
                  <li key={full}>
                    <button
                      type="button"
                      aria-pressed={selected === full}
                      class={selected === full ? 'file selected' : 'file'}
                      onClick={() => onSelect(full)}
                    >
                      {entry.name}
                    </button>{' '}
                    <a href={source.fileUrl(full)} download={entry.name} class="small">
                      download
                    </a>
                  </li>
                );
              })}
          </ul>
        )
      }
    </Await>
  );
}

function FolderEntry(props: FolderProps & { name: string }) {
  // The folder of a file previewed from the address starts open.
  const [open, setOpen] = useState(() => props.selected?.startsWith(`${props.path}/`) ?? false);
  return (
    <li>
      <button type="button" class="folder" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span aria-hidden="true">{open ? '▾ ' : '▸ '}</span>
        {props.name}/
      </button>
      {open && (
        <Folder source={props.source} path={props.path} selected={props.selected} onSelect={props.onSelect} />
      )}
    </li>
  );
}

type Shown = { kind: 'text'; text: string; size: number } | { kind: 'binary'; size: number };

function Preview({ source, path }: { source: FileSource; path: string }) {
  const url = source.fileUrl(path);
  const image = IMAGE.test(path);
  const loaded = useLoad(
    async (signal): Promise<Shown> => {
      if (image) return { kind: 'binary', size: -1 };
      let response: Response;
      try {
        // The same time limit as the API client's requests: never an endless spinner.
        response = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(60_000)]) });
      } catch (error) {
        if (signal.aborted) throw error;
        const timedOut = (error as Error).name === 'TimeoutError';
        throw new ApiError(
          timedOut
            ? `No answer for ${path} within 60 s (time limit).`
            : `The server could not be reached for ${path}.`,
          undefined,
          timedOut ? 'timeout' : 'down',
        );
      }
      if (!response.ok) {
        const body = await response.text();
        let message = body;
        try {
          message = (JSON.parse(body) as { message?: string }).message ?? body;
        } catch {
          // not JSON: the text itself
        }
        throw new ApiError(`${response.status}: ${message}`, response.status);
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      try {
        const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, PREVIEW_BYTES));
        return { kind: 'text', text, size: bytes.length };
      } catch {
        return { kind: 'binary', size: bytes.length };
      }
    },
    [url],
  );
  return (
    <section class="preview" aria-label={`Preview of ${path}`}>
      <h4>
        {path}{' '}
        <a href={url} download={path.split('/').pop()}>
          download
        </a>
      </h4>
      {image ? (
        <img src={url} alt={`The image ${path}`} />
      ) : loaded.state === 'loading' ? (
        <Loading what={`Loading ${path}`} />
      ) : loaded.state === 'error' ? (
        <ErrorMessage error={loaded.error} what={path} />
      ) : loaded.data.kind === 'binary' ? (
        <p class="muted">A binary file of {formatBytes(loaded.data.size)}: no preview, download it.</p>
      ) : (
        <>
          <pre class="file-text" tabIndex={0}>
            {loaded.data.text}
          </pre>
          {loaded.data.size > PREVIEW_BYTES && (
            <p class="muted">
              The first {formatBytes(PREVIEW_BYTES)} of {formatBytes(loaded.data.size)}; download it for the
              rest.
            </p>
          )}
        </>
      )}
    </section>
  );
}
