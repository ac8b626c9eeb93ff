/** A `--import` argument that appends every module URL the process resolves to `log` (the hooks write synchronously, before each import runs). */
export function importLogger(log: string): string {
  const hooks = `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
        return result;
      }`)}`;
  return `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)});`)}`;
}
