/**
 * A `--import` argument that appends every module URL the process resolves to `log` (the hooks write
 * synchronously, before each import runs). `required`: also, at exit, every CommonJS module loaded
 * (a `require()` does not pass the resolve hook), as a file URL.
 */
export function importLogger(log: string, options: { required?: boolean } = {}): string {
  const hooks = `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
        return result;
      }`)}`;
  const atExit = options.required
    ? `import { createRequire } from 'node:module'; import { appendFileSync } from 'node:fs'; import { pathToFileURL } from 'node:url';
       process.on('exit', () => appendFileSync(${JSON.stringify(log)}, Object.keys(createRequire(process.cwd() + '/').cache).map((path) => pathToFileURL(path).href + '\\n').join('')));`
    : '';
  return `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)}); ${atExit}`)}`;
}
