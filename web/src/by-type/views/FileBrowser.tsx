/**
 * Browsing a file tree the API lists (a calcjob's input or output files): folders to open, a text or image preview
 * and a download of each file.
 */
import { useState } from 'preact/hooks';
import { Await } from '../../components/Await.js';
import { useLoad } from '../../hooks.js';
import { isImageName, joinPath, looksLikeText, parentPath, sortEntries, type Entry } from '../logic/files.js';

/** Longest text shown in a preview; the download has the whole file. */
const PREVIEW_BYTES = 256 * 1024;

interface Props {
  /** The entries of a folder ('' is the top). */
  list(path: string, signal: AbortSignal): Promise<Entry[]>;
  /** The URL of a file's bytes; undefined when the files cannot be read (e.g. no retrieved folder). */
  contentUrl?(path: string): string;
  label: string;
  testId?: string;
}

export function FileBrowser({ list, contentUrl, label, testId }: Props) {
  const [folder, setFolder] = useState('');
  const [file, setFile] = useState<string>();
  const entries = useLoad((signal) => list(folder, signal).then(sortEntries), [folder, list]);
  return (
    <div class="bt-files" data-testid={testId}>
      <nav aria-label={label}>
        <p>
          <strong>/{folder}</strong>
        </p>
        <Await loaded={entries} what={folder === '' ? 'the files' : `the folder ${folder}`}>
          {(items) => (
            <ul>
              {folder !== '' && (
                <li>
                  <button type="button" onClick={() => (setFolder(parentPath(folder)), setFile(undefined))}>
                    ⬑ ..
                  </button>
                </li>
              )}
              {items.length === 0 && <li class="bt-muted">(empty)</li>}
              {items.map((e) => (
                <li key={e.name}>
                  {e.type === 'DIRECTORY' ? (
                    <button
                      type="button"
                      onClick={() => (setFolder(joinPath(folder, e.name)), setFile(undefined))}
                      aria-label={`Open folder ${e.name}`}
                    >
                      📁 {e.name}/
                    </button>
                  ) : (
                    <button
                      type="button"
                      aria-pressed={file === joinPath(folder, e.name)}
                      onClick={() => setFile(joinPath(folder, e.name))}
                    >
                      {e.name}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </Await>
      </nav>
      <div>
        {file === undefined ? (
          <p class="bt-muted">Choose a file to preview it.</p>
        ) : contentUrl ? (
          <Preview url={contentUrl(file)} name={file} />
        ) : (
          <p class="bt-muted">The contents of these files are not in the data.</p>
        )}
      </div>
    </div>
  );
}

type Shown =
  { kind: 'text'; text: string; size: number } | { kind: 'binary'; size: number } | { kind: 'image' };

function Preview({ url, name }: { url: string; name: string }) {
  const shown = useLoad(
    async (signal): Promise<Shown> => {
      if (isImageName(name)) return { kind: 'image' };
      const response = await fetch(url, { signal });
      if (!response.ok) {
        let message = response.statusText;
        try {
          message = ((await response.json()) as { message?: string }).message ?? message;
        } catch {
          // The body was not JSON; the status says enough.
        }
        throw new Error(`${response.status}: ${message}`);
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (!looksLikeText(bytes)) return { kind: 'binary', size: bytes.length };
      return {
        kind: 'text',
        text: new TextDecoder().decode(bytes.subarray(0, PREVIEW_BYTES)),
        size: bytes.length,
      };
    },
    [url],
  );
  return (
    <figure class="bt-preview" style={{ margin: 0 }}>
      <figcaption>
        <strong>{name}</strong>{' '}
        <a href={url} download={name.split('/').pop()}>
          Download
        </a>
      </figcaption>
      <Await loaded={shown} what={name}>
        {(s) =>
          s.kind === 'image' ? (
            <img src={url} alt={`Preview of ${name}`} style={{ maxWidth: '100%' }} />
          ) : s.kind === 'binary' ? (
            <p class="bt-muted">A binary file of {s.size} bytes; download it to look inside.</p>
          ) : (
            <>
              <pre class="bt-pre" data-testid="file-preview" tabIndex={0}>
                {s.text}
              </pre>
              {s.size > PREVIEW_BYTES && (
                <p class="bt-muted">
                  The first {PREVIEW_BYTES / 1024} kB of {s.size} bytes; the download has the whole file.
                </p>
              )}
            </>
          )
        }
      </Await>
    </figure>
  );
}
