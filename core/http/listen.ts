// server.listen as a promise that also rejects: a taken port (EADDRINUSE) or a refused one
// (EACCES) is an 'error' event, which unhandled would kill the process with a stack trace. After
// listening, later server errors are logged, never fatal.
import type { Server } from 'node:net';
import type { Logger } from '../log.js';

export function listen(server: Server, port: number, host: string, logger?: Logger): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', (error) => logger?.error({ err: error }, 'server error'));
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
