/**
 * `/docs`: Swagger UI over the document, from the files of the `swagger-ui-dist` package that Quarry serves
 * itself. Nothing is fetched from elsewhere: the page has no inline script, and the UI's online validator badge
 * (which would send the document to validator.swagger.io) is turned off. A link leads back to the explorer, and
 * the page follows the system's dark colour scheme.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** The files of swagger-ui-dist the page uses; no other file of the package is served. */
export const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'];

export function swaggerUiFolder(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `base`: the path the server is reached under (`--public-url`'s path), '' at the root. */
export function docsPage(base: string, title: string): string {
  const asset = (name: string) => escapeHtml(`${base}/docs/assets/${name}`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}" sizes="32x32">
<link rel="icon" type="image/png" href="${asset('favicon-16x16.png')}" sizes="16x16">
<style>
.back { font: 14px/1.4 sans-serif; padding: 10px 20px; }
.back a { color: #1a5fb4; }
html.dark-mode .back a { color: #8cb4ff; }
</style>
</head>
<body>
<nav class="back" aria-label="Quarry"><a href="${escapeHtml(`${base}/`)}">&larr; Back to the explorer</a></nav>
<div id="swagger-ui"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${escapeHtml(`${base}/docs/init.js`)}"></script>
</body>
</html>
`;
}

/** The script that starts the UI on the document's URL. */
export function initScript(documentUrl: string): string {
  // Swagger UI's own dark theme (`html.dark-mode`), following the system's colour scheme as the explorer does.
  return `const dark = window.matchMedia('(prefers-color-scheme: dark)');
const follow = () => document.documentElement.classList.toggle('dark-mode', dark.matches);
follow();
dark.addEventListener('change', follow);
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(documentUrl)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  validatorUrl: null,
});
`;
}
