/** The explorer's entry point: read the server's settings, make the API client, render the app. */
import { render } from 'preact';
import { App } from './app.js';
import './style.css';
import { servedAt, type ServedConfig } from './served.js';

function servedConfig(): ServedConfig {
  const element = document.getElementById('quarry-config');
  try {
    return element?.textContent ? (JSON.parse(element.textContent) as ServedConfig) : {};
  } catch {
    return {};
  }
}

const config = servedConfig();
const target = document.getElementById('app');
if (target) {
  target.textContent = '';
  const served = servedAt(window.location.pathname, config);
  render(
    <App
      apiPath={served.api}
      root={served.root}
      serverRoot={served.serverRoot}
      sources={config.sources ?? []}
      index={served.index}
      docs={served.docs}
    />,
    target,
  );
}
