// Entry: starts the first view's requests, then loads and mounts the app (mount.tsx). The app's
// chunk is preloaded by index.html (vite.config.ts), so the browser fetches and parses it while
// the server answers those requests, instead of asking only once the app has mounted.
import './styles.css';
import { prefetchFirstView } from './api/first-view.js';

prefetchFirstView(window.location);
import('./mount.js').catch((err: unknown) => {
  const root = document.getElementById('root');
  if (root) root.textContent = `The dashboard failed to load (${err instanceof Error ? err.message : String(err)}). Reload the page to try again.`;
  throw err;
});
