/**
 * `/docs`: the OpenAPI document rendered as one HTML page by Quarry itself, with a small script of its own
 * (`/docs/try.js`) that sends a request of an operation and shows the answer. No package renders it: the
 * renderers on npm bring install-time analytics (swagger-ui-dist's @scarf/scarf), telemetry or fonts from other
 * hosts. Nothing is fetched from elsewhere; the page has no inline script. A link leads back to the explorer, and
 * the page follows the system's dark colour scheme.
 */

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The document's descriptions are CommonMark; code spans and bold are what they use. */
function prose(text: string | undefined): string {
  if (!text) return '';
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => {
      const html = escapeHtml(paragraph)
        .replace(/`([^`]+)`/g, '<code>$1</code>')
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
      return `<p>${html}</p>`;
    })
    .join('\n');
}

/** A `#/components/...` reference's target (the document holds no other kind). */
function resolve<T>(document: Json, value: unknown): T {
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return value as T;
  let target: unknown = document;
  for (const key of ref.slice(2).split('/')) target = (target as Json)[key];
  return target as T;
}

/** A value to start the field with: the parameter's first example, else nothing (the server's default). */
function exampleOf(parameter: Parameter): string {
  const value = parameter.example ?? Object.values(parameter.examples ?? {})[0]?.value;
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function typeOf(schema: Json | undefined): string {
  if (schema === undefined) return '';
  if (Array.isArray(schema.enum)) return schema.enum.map(String).join(' | ');
  return typeof schema.type === 'string'
    ? schema.type
    : Array.isArray(schema.type)
      ? schema.type.join(' | ')
      : '';
}

function parameterRow(parameter: Parameter, index: number, id: string): string {
  const field = `${id}-p${index}`;
  return `<tr><td><label for="${field}"><code>${escapeHtml(parameter.name)}</code>${
    parameter.required ? ' <span class="required">required</span>' : ''
  }</label><div class="where">${escapeHtml(parameter.in)} ${escapeHtml(typeOf(parameter.schema))}</div></td>
<td>${prose(parameter.description)}<input id="${field}" name="${escapeHtml(parameter.name)}" data-in="${escapeHtml(
    parameter.in,
  )}" value="${escapeHtml(exampleOf(parameter))}"${parameter.required ? ' required' : ''}></td></tr>`;
}

function operationHtml(document: Json, path: string, method: string, item: Json): string {
  const operation = item[method] as Json;
  const id = `op-${String(operation.operationId ?? `${method}${path}`).replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const shared = (item.parameters as unknown[] | undefined) ?? [];
  const own = (operation.parameters as unknown[] | undefined) ?? [];
  const parameters = [...shared, ...own].map((p) => resolve<Parameter>(document, p));
  const body = operation.requestBody ? resolve<Json>(document, operation.requestBody) : undefined;
  const bodyExample = body
    ? Object.values((body.content as Record<string, { example?: unknown; examples?: Json }>) ?? {})[0]
    : undefined;
  const firstExample =
    bodyExample?.example ??
    (Object.values(bodyExample?.examples ?? {})[0] as { value?: unknown } | undefined)?.value;
  const responses = Object.entries((operation.responses as Json) ?? {}).map(([code, response]) => {
    const resolved = resolve<{ description?: string }>(document, response);
    return `<dt>${escapeHtml(code)}</dt><dd>${prose(resolved.description)}</dd>`;
  });
  return `<details class="operation" id="${escapeHtml(id)}">
<summary><span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${escapeHtml(
    path,
  )}</code> <span class="summary">${escapeHtml(String(operation.summary ?? ''))}</span></summary>
<div class="content">
${prose(operation.description as string | undefined)}
<form class="try" data-method="${method.toUpperCase()}" data-path="${escapeHtml(path)}">
${parameters.length > 0 ? `<table class="parameters"><tbody>${parameters.map((p, i) => parameterRow(p, i, id)).join('\n')}</tbody></table>` : ''}
${
  body
    ? `<label for="${id}-body">Body (JSON)</label>${prose(body.description as string | undefined)}
<textarea id="${id}-body" name="body" rows="8">${escapeHtml(
        firstExample === undefined ? '' : JSON.stringify(firstExample, null, 2),
      )}</textarea>`
    : ''
}
<button type="submit">Send</button>
</form>
<div class="answer" hidden><p class="status"></p><pre class="answer-body"></pre></div>
<h4>Responses</h4>
<dl class="responses">${responses.join('\n')}</dl>
</div>
</details>`;
}

/** The operations of the document under their tags, in the document's order. */
function operationsHtml(document: Json): string {
  const tags = ((document.tags as { name: string; description?: string }[] | undefined) ?? []).map((tag) => ({
    ...tag,
    operations: [] as string[],
  }));
  const byName = new Map(tags.map((tag) => [tag.name, tag]));
  const untagged = { name: 'other', description: undefined, operations: [] as string[] };
  for (const [path, item] of Object.entries((document.paths as Record<string, Json>) ?? {})) {
    for (const method of METHODS) {
      const operation = item[method] as { tags?: string[] } | undefined;
      if (operation === undefined) continue;
      const tag = byName.get(operation.tags?.[0] ?? '') ?? untagged;
      tag.operations.push(operationHtml(document, path, method, item));
    }
  }
  return [...tags, untagged]
    .filter((tag) => tag.operations.length > 0)
    .map(
      (tag) =>
        `<section class="tag"><h2>${escapeHtml(tag.name)}</h2>${prose(tag.description)}\n${tag.operations.join('\n')}</section>`,
    )
    .join('\n');
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #ffffff; --muted: #5f6368; --line: #d6d9de;
  --panel: #f6f7f9; --link: #1a5fb4; --get: #1a7f37; --post: #1a5fb4; --other: #6e5494; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e8e8ea; --bg: #17181b; --muted: #a0a4ab; --line: #3a3d43; --panel: #202226; --link: #8cb4ff;
    --get: #56d364; --post: #8cb4ff; --other: #c8a2ff; }
}
html { background: var(--bg); color: var(--fg); }
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 0 20px 40px; }
a { color: var(--link); }
code, pre, textarea, input { font-family: ui-monospace, monospace; font-size: 13px; }
.back { padding: 10px 0; }
.operation { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; background: var(--panel); }
.operation > summary { cursor: pointer; padding: 6px 10px; }
.method { display: inline-block; min-width: 5.5em; font-weight: 600; color: var(--other); }
.method.get { color: var(--get); } .method.post { color: var(--post); }
.summary { color: var(--muted); }
.content { padding: 0 12px 12px; border-top: 1px solid var(--line); }
.parameters { border-collapse: collapse; width: 100%; }
.parameters td { border-top: 1px solid var(--line); padding: 6px; vertical-align: top; }
.parameters td:first-child { width: 14em; }
.parameters p { margin: 0 0 4px; }
.where { color: var(--muted); font-size: 12px; }
.required { color: #c62828; font-size: 12px; }
input, textarea { width: 100%; box-sizing: border-box; background: var(--bg); color: var(--fg);
  border: 1px solid var(--line); border-radius: 4px; padding: 4px; }
button { margin: 8px 0; padding: 4px 16px; }
.answer pre { max-height: 30em; overflow: auto; background: var(--bg); border: 1px solid var(--line); padding: 8px; }
dt { font-weight: 600; } dd { margin: 0 0 6px 2em; } dd p { margin: 0; }
`;

/**
 * `base`: the path the server is reached under (`--public-url`'s path), '' at the root; `documentUrl`: the
 * document's path.
 */
export function docsPage(base: string, documentUrl: string, document: Json): string {
  const info = (document.info as { title?: string; description?: string; version?: string }) ?? {};
  const server = ((document.servers as { url: string }[] | undefined) ?? [])[0]?.url ?? '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title ?? 'API')}</title>
<style>${STYLE}</style>
</head>
<body>
<nav class="back" aria-label="Quarry"><a href="${escapeHtml(`${base}/`)}">&larr; Back to the explorer</a></nav>
<main id="operations" data-server="${escapeHtml(server)}">
<h1>${escapeHtml(info.title ?? 'API')} <small>${escapeHtml(info.version ?? '')}</small></h1>
${prose(info.description)}
<p>The OpenAPI document: <a href="${escapeHtml(documentUrl)}">${escapeHtml(documentUrl)}</a>. Open an operation,
fill in its parameters and send it to this server.</p>
${operationsHtml(document)}
</main>
<script src="${escapeHtml(`${base}/docs/try.js`)}"></script>
</body>
</html>
`;
}

/**
 * The page's script: each operation's form sends its request to the document's server and shows the status and
 * the answer (JSON indented, text as it is, other types by their size).
 */
export const TRY_SCRIPT = `'use strict';
const server = document.getElementById('operations').dataset.server;
for (const form of document.querySelectorAll('form.try')) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const answer = form.nextElementSibling;
    const status = answer.querySelector('.status');
    const shown = answer.querySelector('.answer-body');
    let path = form.dataset.path;
    const query = [];
    const headers = {};
    for (const input of form.querySelectorAll('input[data-in]')) {
      if (input.value === '') continue;
      const where = input.dataset.in;
      if (where === 'path') path = path.replace('{' + input.name + '}', encodeURIComponent(input.value));
      else if (where === 'query') query.push(encodeURIComponent(input.name) + '=' + encodeURIComponent(input.value));
      else if (where === 'header') headers[input.name] = input.value;
    }
    const body = form.querySelector('textarea[name=body]');
    const init = { method: form.dataset.method, headers };
    if (body && body.value.trim() !== '') {
      init.body = body.value;
      headers['Content-Type'] = 'application/json';
    }
    const url = server + path + (query.length > 0 ? '?' + query.join('&') : '');
    answer.hidden = false;
    status.textContent = init.method + ' ' + url + ' ...';
    shown.textContent = '';
    try {
      const response = await fetch(url, init);
      status.textContent = response.status + ' ' + response.statusText + ' ' + init.method + ' ' + url;
      status.dataset.status = String(response.status);
      const type = response.headers.get('content-type') || '';
      if (/json/.test(type)) {
        const text = await response.text();
        try { shown.textContent = JSON.stringify(JSON.parse(text), null, 2); } catch { shown.textContent = text; }
      } else if (/^text\\//.test(type)) shown.textContent = await response.text();
      else shown.textContent = (await response.arrayBuffer()).byteLength + ' bytes of ' + (type || 'no type');
    } catch (error) {
      status.textContent = 'No answer: ' + error;
    }
  });
}
`;
