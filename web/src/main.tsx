/** The explorer's entry point: read the server's settings, make the API client, render the app. */
import { render } from 'preact';
import { App } from './app.js';
import './style.css';

interface ServedConfig {
  /** The API's path (or URL), e.g. `/api/v4`. */
  api?: string;
  /** The path the app is published under, e.g. `/quarry`; `''` at the host's root. */
  root?: string;
  /** The names of the sources served, the default first. */
  sources?: string[];
}

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
  render(
    <App apiPath={config.api ?? '/api/v4'} root={config.root ?? ''} sources={config.sources ?? []} />,
    target,
  );
}
