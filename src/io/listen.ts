import type { Server } from 'node:http';
import { InputError } from '../errors.js';

/**
 * `server.listen(port, host)` as a promise, with the usual failures as input errors that say
 * what to change (a busy port, a privileged port, an address this machine does not have).
 */
export function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      if (error.code === 'EADDRINUSE') reject(new InputError(`--port: ${where} is already in use; choose another port (--port 0 picks a free one)`));
      else if (error.code === 'EACCES') reject(new InputError(`--port: not allowed to listen on ${where} (ports below 1024 need privileges)`));
      else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') reject(new InputError(`--host: ${host} is not an address of this machine`));
      else reject(error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
