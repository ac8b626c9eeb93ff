import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LABEL_TOKEN_META } from './labelApi.js';

export interface ClientAssets {
  js: string;
  css: string;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const CLIENT_ENTRY = join(HERE, 'client', 'main.tsx');
/** The client as `npm run build` bundles it beside the compiled server (dist/viewer/): no bundling at start. */
export const PREBUILT_CLIENT = { js: 'client.bundle.js', css: 'client.bundle.css' } as const;

let built: Promise<ClientAssets> | null = null;

/** The viewer's client bundled by esbuild into one script and one stylesheet, in memory (1–2 s on a busy machine). */
export async function bundleClient(): Promise<ClientAssets> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [CLIENT_ENTRY],
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js) throw new Error('viewer client: esbuild produced no script');
  return { js: js.text, css: css?.text ?? '' };
}

/** The client the server and `--bundle` serve: the prebuilt one beside the compiled server, else bundled now (once). */
export function clientAssets(): Promise<ClientAssets> {
  built ??= (async () => {
    try {
      const [js, css] = await Promise.all([readFile(join(HERE, PREBUILT_CLIENT.js), 'utf8'), readFile(join(HERE, PREBUILT_CLIENT.css), 'utf8')]);
      return { js, css };
    } catch {
      return bundleClient();
    }
  })();
  built.catch(() => (built = null));
  return built;
}

/** The page that loads the client; `dataScript` (a bundle's run list) comes before the client. */
export function indexHtml(options: { title?: string; bundle?: boolean; labelToken?: string } = {}): string {
  return [
    '<!doctype html>',
    '<html lang="zh-Hans"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${options.title ?? 'hisrag view'}</title>`,
    '<link rel="icon" href="data:,">',
    '<link rel="stylesheet" href="app.css">',
    // The live server's label-write token (base64url: nothing to escape); a bundle has none and cannot write.
    options.labelToken ? `<meta name="${LABEL_TOKEN_META}" content="${options.labelToken}">` : '',
    options.bundle ? '<script src="data/runs.js"></script>' : '',
    '</head><body><div id="app"></div>',
    '<script src="app.js"></script>',
    '</body></html>',
  ].join('\n');
}
