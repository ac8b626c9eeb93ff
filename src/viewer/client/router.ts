/** Routing: wouter's hash location (a bundle works from file://); the pages import the router's pieces from here. */
export { Link, Route, Router, Switch, useLocation, useSearchParams } from 'wouter-preact';
export { useHashLocation } from 'wouter-preact/use-hash-location';

/** The view state lives in the URL as `?<parameters>#/<page>`: a pasted `#/<page>?<parameters>` is put in that form. */
function normalizeHash(): void {
  const hash = location.hash;
  const q = hash.indexOf('?');
  if (q < 0) return;
  const url = new URL(location.href);
  url.hash = hash.slice(0, q);
  url.search = hash.slice(q + 1);
  history.replaceState(history.state, '', url.href);
}
normalizeHash();
addEventListener('hashchange', normalizeHash);
// Back and forward between entries the router pushed fire popstate only; the hash router listens for hashchange.
addEventListener('popstate', () => dispatchEvent(new HashChangeEvent('hashchange')));

/** What a `<Link href="/page?params">` puts in its href: the same form, so that copying a link copies the view. */
export const hrefs = (href: string) => {
  const q = href.indexOf('?');
  return q < 0 ? `${location.search}#${href}` : `?${href.slice(q + 1)}#${href.slice(0, q)}`;
};

