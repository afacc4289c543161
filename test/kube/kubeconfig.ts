// Writes an admin kubeconfig with the certificates embedded (not file paths), so it stays
// valid when copied and every client (kubectl, @kubernetes/client-node) reads it the same way.
import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { ControlPlanePki } from './pki.js';

export async function writeKubeconfig(path: string, server: string, pki: ControlPlanePki): Promise<void> {
  const b64 = async (file: string): Promise<string> => (await readFile(file)).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'herald-test', cluster: { server, 'certificate-authority-data': await b64(pki.caFile) } }],
    users: [{
      name: 'admin',
      user: {
        'client-certificate-data': await b64(pki.adminCertFile),
        'client-key-data': await b64(pki.adminKeyFile),
      },
    }],
    contexts: [{ name: 'herald-test', context: { cluster: 'herald-test', user: 'admin', namespace: 'default' } }],
    'current-context': 'herald-test',
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
}
