import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError } from '../errors.js';
import { listenOn } from '../io/listen.js';
import { RUN_FILES } from '../runFiles/runDir.js';
import { answerQueryFromParams, compareQueryFromParams } from './api.js';
import { clientAssets, indexHtml } from './clientBuild.js';
import { LabelRoutes } from './labelRoutes.js';
import { pageImageFile, thumbnailOf } from './pageImages.js';
import { insideFile } from './runFileReads.js';
import { RunStore } from './runStore.js';

export interface ViewerServer {
  url: string;
  server: Server;
  store: RunStore;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  // Scripts only from the viewer itself: no inline script, no eval, nothing from elsewhere.
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
};

/** Page images may be cached a while; everything else is asked for again. */
const IMAGE_CACHE = 'private, max-age=300';

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, head = false, cache = 'no-store'): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': cache, ...SECURITY_HEADERS });
  res.end(head ? undefined : body);
}

/** A file streamed from disk (a full-size page image, a run's report.html), with headers of its own. */
function sendFile(res: ServerResponse, file: string, headers: Record<string, string>, head: boolean): void {
  res.writeHead(200, { ...SECURITY_HEADERS, ...headers });
  if (head) res.end();
  else createReadStream(file).pipe(res);
}

/** Without a request for the run list, background indexing starts this long after the server listens. */
const LIST_FIRST_MS = 1500;

const notFound = (res: ServerResponse, head: boolean) => send(res, 404, 'text/plain; charset=utf-8', 'not found\n', head);
const sendJson = (res: ServerResponse, status: number, value: unknown, head = false) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value), head);
const json = (res: ServerResponse, value: unknown, head: boolean) => (value === null ? notFound(res, head) : sendJson(res, 200, value, head));

/** The annotation page's routes: the blind page data, the judge's marks once saved, and the one write (a label). */
async function serveLabels(store: RunStore, labels: LabelRoutes, write: boolean, segments: string[], q: URLSearchParams, req: IncomingMessage, res: ServerResponse, head: boolean): Promise<void> {
  const run = store.get(segments[2]!);
  if (!run) return notFound(res, head);
  const reply = (status: number, value: unknown) => sendJson(res, status, value);
  try {
    if (write) return await labels.write(run.dir, req, reply);
    if (segments[3] === 'judge') return await labels.judge(run.dir, Number(q.get('index') ?? -1), q.get('annotator') ?? '', reply);
    return json(res, await labels.page(run.dir, q.get('annotator')), head);
  } catch (error) {
    // A run that cannot be labelled (its benchmark file moved, a damaged label file) says why.
    if (error instanceof InputError) return reply(400, { error: error.message });
    throw error;
  }
}

/** The routes under `/api/runs/<id>/`: the run, its answers, one answer, and the page images its prompts may show. */
async function serveRun(store: RunStore, segments: string[], q: URLSearchParams, res: ServerResponse, head: boolean): Promise<void> {
  const id = segments[2]!;
  if (segments.length === 3) return json(res, await store.run(id), head);
  if (segments.length === 4 && segments[3] === 'answers') return json(res, store.answers(answerQueryFromParams(id, q)), head);
  if (segments.length === 4 && segments[3] === 'answer') return json(res, await store.answer(id, q.get('key') ?? ''), head);
  // A page image the run's prompts may show: `images/<i>/<path>` (full size) or `thumbs/<i>/<path>`, i indexing the manifest's imageDirs.
  if (segments.length >= 6 && (segments[3] === 'images' || segments[3] === 'thumbs') && /^\d+$/.test(segments[4]!)) {
    const imageDir = store.get(id)?.files.imageDirs()[Number(segments[4])];
    const image = imageDir ? pageImageFile(imageDir, segments.slice(5).join('/')) : null;
    if (!image) return notFound(res, head);
    if (segments[3] === 'thumbs') return send(res, 200, 'image/jpeg', await thumbnailOf(image.file), head, IMAGE_CACHE);
    return sendFile(res, image.file, { 'Content-Type': image.type, 'Cache-Control': IMAGE_CACHE }, head);
  }
  return notFound(res, head);
}

/**
 * `hisrag view`'s server: the client's three files, a read-only JSON API over a `RunStore`'s runs,
 * and the page images their prompts showed. A run is named by its id and an image folder by its
 * index, never by a path, so traversal of any kind leads to 404. GET and HEAD, and one write: a
 * label from the annotation page (`labelRoutes.ts`), the only thing written in a run directory.
 */
export async function startViewer(paths: string[], options: { port?: number; host?: string; cacheDir?: string; cacheLimit?: string } = {}): Promise<ViewerServer> {
  // The runs are found and read from what they summarise; their answers are indexed in the background.
  const store = new RunStore(paths, { cacheDir: options.cacheDir, cacheLimit: options.cacheLimit });
  await store.scan(true);
  let listServed = () => {};
  const assets = await clientAssets();
  // Label writes carry the token of this start's page (and come from its origin): no other page can write.
  const labelToken = randomBytes(24).toString('base64url');
  const html = indexHtml({ labelToken });
  let ownOrigins: string[] = [];
  const labels = new LabelRoutes(labelToken, () => ownOrigins);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const head = req.method === 'HEAD';
    const labelWrite = req.method === 'POST' && /^\/api\/runs\/[^/?]+\/labels(\?|$)/.test(req.url ?? '');
    if (req.method !== 'GET' && !head && !labelWrite) {
      res.writeHead(405, { Allow: 'GET, HEAD', ...SECURITY_HEADERS });
      res.end();
      return;
    }
    const raw = req.url ?? '/';
    // Anything that spells a parent folder, encoded or not, or a backslash, is refused before routing.
    if (/%2e|%2f|%5c|\\|\/\.\.?(\/|$)/i.test(raw.split('?')[0]!)) return notFound(res, head);
    const url = new URL(raw, 'http://viewer.invalid');
    const path = url.pathname;
    const q = url.searchParams;
    if (path === '/' || path === '/index.html') return send(res, 200, 'text/html; charset=utf-8', html, head);
    if (path === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', assets.js, head);
    if (path === '/app.css') return send(res, 200, 'text/css; charset=utf-8', assets.css, head);
    if (path === '/api/runs') {
      json(res, await store.list(), head);
      listServed();
      return;
    }
    if (path === '/api/indexing') return json(res, store.indexingStatus(), head);
    if (path === '/api/compare') {
      const query = compareQueryFromParams(q);
      return json(res, query ? await store.compare(query) : null, head);
    }
    let segments: string[];
    try {
      segments = path.split('/').slice(1).map((s) => decodeURIComponent(s));
    } catch {
      return notFound(res, head); // a malformed escape
    }
    if (segments[0] === 'api' && segments[1] === 'runs' && segments[2] !== undefined) {
      // A run that appeared since the last scan is looked for at once.
      await store.scan(!store.ids().includes(segments[2]));
      if (segments.length === 4 && (segments[3] === 'labels' || segments[3] === 'judge')) return serveLabels(store, labels, labelWrite, segments, q, req, res, head);
      return serveRun(store, segments, q, res, head);
    }
    if (segments.length === 3 && segments[0] === 'runs' && segments[2] === RUN_FILES.report) {
      const run = store.get(segments[1]!);
      const file = run ? insideFile(run.dir, RUN_FILES.report) : null;
      if (!file) return notFound(res, head);
      return sendFile(res, file, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:" }, head);
    }
    return notFound(res, head);
  };

  const server = createServer((req, res) => {
    const done = store.request();
    res.once('close', done);
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `internal error: ${(error as Error).message}\n`);
      else res.destroy();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await listenOn(server, options.port ?? 0, host);
  // The run list first: the cache folder is pruned and the answers are indexed in the background
  // once it has been served (or after LIST_FIRST_MS without a request), between requests.
  let pruned = false;
  listServed = () => {
    clearTimeout(timer);
    if (!pruned) {
      pruned = true;
      try {
        store.pruneCache();
      } catch {
        // a cache folder that cannot be listed is only not pruned
      }
    }
    store.startIndexing();
  };
  const timer = setTimeout(listServed, LIST_FIRST_MS).unref();
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const loopback = ['127.0.0.1', '::1', 'localhost'].includes(host);
  ownOrigins = [...new Set([shownHost, host.includes(':') ? `[${host}]` : host, ...(loopback ? ['127.0.0.1', 'localhost', '[::1]'] : [])])].map((h) => `http://${h}:${address.port}`);
  return {
    url: `http://${shownHost}:${address.port}/`,
    server,
    store,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        // A refresh of a run's summary after a label save finishes before the store goes.
        server.close(() => {
          void labels.refreshed().then(() => {
            store.close();
            resolvePromise();
          });
        });
      }),
  };
}
