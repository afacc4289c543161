// A Secret that an App owns: where a credential Herald issues (a REST key, an identity secret) is
// handed over, once, in plaintext. Owned by the App so it goes with it, labelled so the
// controller's Secret caches and `kubectl get secrets -l herald.dev/app=NAME` find it.
import type { CoreV1Api } from '@kubernetes/client-node';
import { API_VERSION } from '../kube/client.js';
import { APP_KIND, type AppObject } from './types.js';

export async function createOwnedSecret(core: CoreV1Api, app: AppObject, name: string, labels: Record<string, string>, stringData: Record<string, string>): Promise<void> {
  await core.createNamespacedSecret({
    namespace: app.metadata.namespace!,
    body: {
      metadata: {
        name,
        namespace: app.metadata.namespace,
        labels: { 'app.kubernetes.io/managed-by': 'herald', 'herald.dev/app': app.metadata.name, ...labels },
        ownerReferences: [{ apiVersion: API_VERSION, kind: APP_KIND, name: app.metadata.name, uid: app.metadata.uid!, controller: true, blockOwnerDeletion: true }],
      },
      type: 'Opaque',
      stringData,
    },
  });
}
