/** The app shell: header with navigation and source switcher, the view of the current route. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi } from './api.js';
import { ExplorerContext, type Explorer } from './context.js';
import { appHref, parseRoute, type Route } from './url.js';
import { Link } from './components/Link.js';
import { Home } from './views/Home.js';
import { NodeList } from './views/NodeList.js';
import { NodePage } from './views/NodePage.js';
import { NotFound } from './views/NotFound.js';
import { Boundary } from './components/Boundary.js';
import { Lazy } from './components/Lazy.js';
import { SearchBox } from './components/SearchBox.js';
import { currentSource } from './search-state.js';

/** The search page is a chunk of its own: none of it is in the first page's JavaScript. */
const loadSearch = () => import('./views/SearchPage.js');
// Groups, computers and users are rarely where a visit starts: their views are chunks of their own, so that the
// first view stays within its budget.
const loadGroupList = () => import('./views/Groups.js').then((m) => ({ default: m.GroupList }));
const loadGroupPage = () => import('./views/Groups.js').then((m) => ({ default: m.GroupPage }));
const loadComputerList = () => import('./views/Computers.js').then((m) => ({ default: m.ComputerList }));
const loadComputerPage = () => import('./views/Computers.js').then((m) => ({ default: m.ComputerPage }));
const loadUserList = () => import('./views/Users.js').then((m) => ({ default: m.UserList }));

interface Props {
  apiPath: string;
  root: string;
  serverRoot: string;
  sources: string[];
  /** Where to ask for the index of sources, in order. */
  index: string[];
  /** The API's documentation page. */
  docs: string;
}

function currentLocation() {
  return { pathname: window.location.pathname, search: window.location.search };
}

export function App({ apiPath, root, serverRoot, sources, index, docs }: Props) {
  const [location, setLocation] = useState(currentLocation);
  useEffect(() => {
    const onPop = () => setLocation(currentLocation());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const params = useMemo(() => new URLSearchParams(location.search), [location.search]);
  const profile = params.get('profile') ?? undefined;
  const apiParam = params.get('api') ?? undefined;
  const api = useMemo(
    () => createApi({ base: new URL(apiParam ?? apiPath, window.location.href).href, profile }),
    [apiParam, apiPath, profile],
  );
  const route = parseRoute(location.pathname, root);

  const explorer: Explorer = {
    api,
    root,
    serverRoot,
    params,
    sources: apiParam === undefined ? sources : [],
    // One source named by the server: no index to ask for (a single-source server has none).
    index: apiParam === undefined && sources.length !== 1 ? index : [],
    href: (path, extra) => appHref(path, extra, params, root),
    navigate: (url, options) => {
      const before = window.location.pathname;
      if (options?.replace) window.history.replaceState(null, '', url);
      else window.history.pushState(null, '', url);
      setLocation(currentLocation());
      // A new view: keyboard and screen reader users start reading it, not the link they left. Within a view
      // (paging, sorting) focus stays where it is.
      if (!options?.replace && window.location.pathname !== before) {
        window.scrollTo(0, 0);
        document.getElementById('main')?.focus({ preventScroll: true });
      }
    },
  };

  useEffect(() => {
    document.title = `${titleOf(route)} · Quarry`;
  }, [location.pathname]);

  return (
    <ExplorerContext.Provider value={explorer}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <nav aria-label="Main">
          <Link path="/" class="brand">
            Quarry
          </Link>
          <Link path="/nodes">Nodes</Link>
          <Link path="/groups">Groups</Link>
          <Link path="/computers">Computers</Link>
          <Link path="/users">Users</Link>
          <a href={docs}>API docs</a>
        </nav>
        <SourceSwitcher route={route} />
        {route.name !== 'search' && (
          <SearchBox
            id="header-search"
            class="search-header"
            source={
              // The switch is for a server of several sources.
              explorer.index.length > 0 || explorer.sources.length > 1
                ? currentSource(params, root, serverRoot, explorer.sources)
                : undefined
            }
          />
        )}
      </header>
      <main id="main" tabIndex={-1}>
        <Boundary key={`${location.pathname}?${location.search}`} what="this view">
          <View route={route} />
        </Boundary>
      </main>
      <footer class="bottom">
        <a href={api.url('/')}>API</a> · {api.base} · <a href={docs}>API documentation</a>
      </footer>
    </ExplorerContext.Provider>
  );
}

function titleOf(route: Route): string {
  switch (route.name) {
    case 'home':
      return 'Home';
    case 'node':
    case 'group':
    case 'computer':
      return `${route.name} ${route.uuid.slice(0, 8)}`;
    case 'unknown':
      return 'Not found';
    default:
      return route.name[0]!.toUpperCase() + route.name.slice(1);
  }
}

function View({ route }: { route: Route }) {
  switch (route.name) {
    case 'home':
      return <Home />;
    case 'nodes':
      return <NodeList />;
    case 'node':
      return <NodePage key={route.uuid} uuid={route.uuid} />;
    case 'groups':
      return <Lazy load={loadGroupList} props={{}} what="the groups" />;
    case 'group':
      return <Lazy key={route.uuid} load={loadGroupPage} props={{ uuid: route.uuid }} what="the group" />;
    case 'computers':
      return <Lazy load={loadComputerList} props={{}} what="the computers" />;
    case 'computer':
      return (
        <Lazy key={route.uuid} load={loadComputerPage} props={{ uuid: route.uuid }} what="the computer" />
      );
    case 'users':
      return <Lazy load={loadUserList} props={{}} what="the users" />;
    case 'search':
      return <Lazy load={loadSearch} props={{}} what="the search" />;
    default:
      return (
        <NotFound>
          There is no page at <code>{route.path}</code> in this explorer.
        </NotFound>
      );
  }
}

/** Several sources served: choose which one every view shows (`?profile=`). */
function SourceSwitcher({ route }: { route: Route }) {
  return (
    <ExplorerContext.Consumer>
      {(explorer) => {
        if (!explorer || explorer.sources.length < 2) return null;
        const current = explorer.params.get('profile') ?? explorer.sources[0];
        // Items are not shared between sources: switching from a node's page goes to the home page.
        const listPath = ['nodes', 'groups', 'computers', 'users'].includes(route.name)
          ? `/${route.name}`
          : '/';
        return (
          <label class="switcher">
            Source{' '}
            <select
              value={current}
              onChange={(event) => {
                const name = (event.currentTarget as HTMLSelectElement).value;
                const profile = name === explorer.sources[0] ? undefined : name;
                explorer.navigate(
                  appHref(listPath, { profile }, withoutProfile(explorer.params), explorer.root),
                );
              }}
            >
              {explorer.sources.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        );
      }}
    </ExplorerContext.Consumer>
  );
}

function withoutProfile(params: URLSearchParams): URLSearchParams {
  const copy = new URLSearchParams(params);
  copy.delete('profile');
  return copy;
}
