// Where the controller's Kubernetes configuration comes from, found the way controller-runtime's
// GetConfig finds it (and so as kubectl and client-go tools behave): HERALD_KUBECONFIG (our
// override), else KUBECONFIG (a list of files, merged), else the pod's ServiceAccount, else
// ~/.kube/config. Then one request proves the server answers, so a wrong or unreachable config
// is a one-line error at start instead of watches retrying forever.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig, VersionApi } from '@kubernetes/client-node';
import { describeKubeError, statusOf } from './client.js';

/** What the process was given; cli/ reads the environment, this module only decides. */
export interface KubeConfigSources {
  /** HERALD_KUBECONFIG: one file, wins over everything. */
  heraldKubeconfig?: string;
  /** KUBECONFIG: files separated by ':' (';' on Windows), as kubectl reads it. */
  kubeconfig?: string;
  /** KUBERNETES_SERVICE_HOST, set by the kubelet in every pod. */
  serviceHost?: string;
  /** The user's home directory, for ~/.kube/config. */
  home?: string;
}

export interface LoadedKubeConfig {
  kc: KubeConfig;
  /** Where it came from, for the start-up log and error lines, e.g. `KUBECONFIG=/a:/b`. */
  source: string;
  server: string;
}

export class KubeConfigError extends Error {}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** `podRoot` prefixes the ServiceAccount files (tests; the library's loadFromCluster takes the same prefix). */
export function loadKubeConfigFrom(sources: KubeConfigSources, podRoot = ''): LoadedKubeConfig {
  const kc = new KubeConfig();
  const homeConfig = sources.home ? join(sources.home, '.kube', 'config') : undefined;
  let source = '';
  try {
    if (sources.heraldKubeconfig) {
      source = `HERALD_KUBECONFIG=${sources.heraldKubeconfig}`;
      kc.loadFromFile(sources.heraldKubeconfig);
    } else if (sources.kubeconfig) {
      source = `KUBECONFIG=${sources.kubeconfig}`;
      // The library's own KUBECONFIG handling (it reads the same variable): the first file is
      // loaded, the others merged into it; `true` keeps the first file's current-context, as
      // kubectl does. A duplicate cluster, user or context name across files is an error.
      kc.loadFromDefault(undefined, true);
    } else if (sources.serviceHost && existsSync(podRoot + SERVICE_ACCOUNT_TOKEN)) {
      source = 'in-cluster ServiceAccount';
      kc.loadFromCluster(podRoot); // the service address from KUBERNETES_SERVICE_HOST/_PORT, as every pod has
    } else if (homeConfig && existsSync(homeConfig)) {
      source = homeConfig;
      kc.loadFromFile(homeConfig);
    } else {
      throw new KubeConfigError(
        'no Kubernetes configuration: set KUBECONFIG (or HERALD_KUBECONFIG) to a kubeconfig file, create ~/.kube/config, or run in a pod',
      );
    }
  } catch (error) {
    if (error instanceof KubeConfigError) throw error;
    throw new KubeConfigError(`cannot read the Kubernetes configuration from ${source}: ${oneLine(error)}`);
  }
  const context = kc.getCurrentContext();
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) {
    throw new KubeConfigError(`the Kubernetes configuration from ${source} has no cluster server for its current context${context ? ` "${context}"` : ''}; set current-context or fix the file`);
  }
  return { kc, source, server: cluster.server };
}

/** Asks the server for its version (authenticated): resolves when it answers, else a KubeConfigError. */
export async function checkKubeReachable(loaded: LoadedKubeConfig, timeoutMs = 10_000): Promise<string> {
  const api = loaded.kc.makeApiClient(VersionApi);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    const version = await Promise.race([api.getCode(), timeout]);
    return version.gitVersion;
  } catch (error) {
    throw new KubeConfigError(
      `cannot reach the Kubernetes API at ${loaded.server} (from ${loaded.source}): ${oneLine(error)}; check the kubeconfig's server and credentials, and that the cluster is up`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/** One line: an API answer as `HTTP <status>: <reason>`, else the error's first line. */
function oneLine(error: unknown): string {
  const message = String((error as Error)?.message ?? error);
  const status = statusOf(error);
  if (status === undefined) return message.split('\n')[0].trim();
  // The client's ApiException message is "HTTP-Code: 401\nMessage: Unauthorized\nBody: ...".
  const reason = /^Message: (.+)$/m.exec(message)?.[1] ?? describeKubeError(error).split('\n')[0];
  return `HTTP ${status}: ${reason}`;
}
