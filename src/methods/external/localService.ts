import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { importUserModule } from '../../io/importModule.js';

/**
 * A local service an `http` method starts before its first question (an example under
 * `examples/`, a test's stand-in): a module whose export is `async (options) => service`, called
 * with the config's `options` plus the `host` and `port` of the method's URL. The service must
 * listen there before it resolves and should not keep the process alive (`unref`), so the run
 * ends when its work does; it stops with the process.
 */
export const LocalServiceSchema = z
  .object({
    module: z.string().min(1),
    export: z.string().min(1).default('default'),
    options: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type LocalService = z.infer<typeof LocalServiceSchema>;

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

// One start per address per process: a resumed run in the same process finds it serving.
const started = new Map<string, Promise<void>>();

export async function startLocalService(spec: LocalService, url: string): Promise<void> {
  const address = new URL(url.replace(/\{[^}]*\}/g, 'x'));
  if (!LOCAL_HOSTS.has(address.hostname)) {
    throw new ConfigError(`serve: starts a local service, but url's host is ${address.hostname}; use 127.0.0.1 or localhost, or remove serve for a deployed service`);
  }
  const key = address.origin;
  let pending = started.get(key);
  if (!pending) {
    pending = (async () => {
      const loaded = await importUserModule(spec.module);
      const start = loaded[spec.export];
      if (typeof start !== 'function') throw new ConfigError(`serve.module: ${spec.module} has no function export "${spec.export}"`);
      const port = Number(address.port || (address.protocol === 'https:' ? 443 : 80));
      let service: { unref?: () => void } | undefined;
      try {
        service = (await start({ ...spec.options, host: address.hostname.replace(/^\[|\]$/g, ''), port })) as { unref?: () => void } | undefined;
      } catch (error) {
        if ((error as { code?: string }).code === 'EADDRINUSE') {
          throw new ConfigError(`serve: ${key} is already in use; stop what listens there, or remove serve to call the service already running`);
        }
        throw error;
      }
      service?.unref?.();
    })();
    started.set(key, pending);
    pending.catch(() => started.delete(key));
  }
  await pending;
}
