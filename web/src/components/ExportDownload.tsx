/**
 * Taking data home in AiiDA's own form: a node's or group's `.aiida` archive with its provenance (the server's
 * `/export/`), shown first as what it will hold (its `dry_run`), then downloaded; and a source's whole dataset
 * (`/export/all.aiida`). Both say how to import the file into AiiDA.
 */
import { useState } from 'preact/hooks';
import { useExplorer } from '../context.js';
import { formatBytes, formatCount, typeName } from '../format.js';
import type { Api } from '../api.js';
import { servesOptimade } from '../optimade-base.js';

interface Summary {
  nodes: { total: number; by_type: Record<string, number> };
  links: number;
  groups: number;
  files: number;
  file_bytes: number;
  comments: number;
  logs: number;
}

/** The export root of the source the explorer shows: beside its API, `/<name>/export` for a source by name. */
function exportBase(api: Api, root: string): string {
  const path = api.profile === undefined ? root : `${root}/${encodeURIComponent(api.profile)}`;
  return new URL(`${path}/export`, window.location.origin).href;
}

function ImportCommand({ file }: { file: string }) {
  return (
    <p class="muted">
      Import it into your AiiDA profile with <code>verdi archive import {file}</code>
    </p>
  );
}

/** "Download with provenance (.aiida)" for nodes or groups (by UUID). */
export function ExportDownload({ nodes = [], groups = [] }: { nodes?: string[]; groups?: string[] }) {
  const { api, root } = useExplorer();
  const [state, setState] = useState<
    | { kind: 'idle' }
    | { kind: 'loading' }
    | { kind: 'ready'; summary: Summary }
    | { kind: 'error'; message: string }
  >({ kind: 'idle' });
  // Only the server that serves the explorer is known to answer /export/.
  if (!servesOptimade(api)) return null;
  const query = [
    nodes.length > 0 ? `nodes=${nodes.join(',')}` : '',
    groups.length > 0 ? `groups=${groups.join(',')}` : '',
  ]
    .filter(Boolean)
    .join('&');
  const url = `${exportBase(api, root)}/?${query}`;
  const file = `${(nodes[0] ?? groups[0] ?? 'export').slice(0, 8)}.aiida`;
  const look = async () => {
    setState({ kind: 'loading' });
    try {
      const response = await fetch(`${url}&dry_run=1`);
      const body = (await response.json()) as Summary & { message?: string };
      if (!response.ok)
        setState({ kind: 'error', message: body.message ?? `the server answered ${response.status}` });
      else setState({ kind: 'ready', summary: body });
    } catch (error) {
      setState({ kind: 'error', message: (error as Error).message });
    }
  };
  return (
    <div class="export-download" data-field="export">
      {state.kind !== 'ready' && (
        <button type="button" class="small" onClick={look} disabled={state.kind === 'loading'}>
          {state.kind === 'loading' ? 'Finding its provenance…' : 'Download with provenance (.aiida)'}
        </button>
      )}
      {state.kind === 'error' && <p role="alert">The export cannot be made: {state.message}</p>}
      {state.kind === 'ready' && (
        <div data-field="export-summary">
          <p>
            The archive will hold {formatCount(state.summary.nodes.total)} nodes (
            {Object.entries(state.summary.nodes.by_type)
              .sort((a, b) => b[1] - a[1])
              .map(([type, n]) => `${formatCount(n)} ${typeName(type)}`)
              .join(', ')}
            ), {formatCount(state.summary.links)} links, {formatCount(state.summary.files)} files (
            {formatBytes(state.summary.file_bytes)}), {formatCount(state.summary.comments)} comments and{' '}
            {formatCount(state.summary.logs)} logs
            {state.summary.groups > 0 ? `, in ${formatCount(state.summary.groups)} groups` : ''}.
          </p>
          <a href={url} download={file}>
            Download {file}
          </a>
          <ImportCommand file={file} />
        </div>
      )}
    </div>
  );
}

/** "Download the whole dataset" of the source shown. */
export function WholeDataset() {
  const { api, root } = useExplorer();
  if (!servesOptimade(api)) return null;
  return (
    <p class="export-download" data-field="export-all">
      <a href={`${exportBase(api, root)}/all.aiida`} download="dataset.aiida">
        Download the whole dataset (.aiida)
      </a>{' '}
      <span class="muted">
        then <code>verdi archive import dataset.aiida</code>
      </span>
    </p>
  );
}
