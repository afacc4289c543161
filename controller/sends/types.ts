// The Send custom resource (crds/sends.herald.dev.yaml) as the controller reads and writes it.
import type { KubeObject } from '../kube/client.js';
import type { Condition } from '../kube/conditions.js';
import type { SendStatus as SendState } from '../../core/send/status.js';

/** The REST body's fields (same snake_case names), with appRef in place of app_id. */
export interface SendSpec {
  appRef: { name: string };
  contents: Record<string, string>;
  headings?: Record<string, string>;
  included_segments?: string[];
  tag?: { field?: 'tag'; key: string; relation: string; value?: string };
  include_subscription_ids?: string[];
  include_external_ids?: string[];
  send_after?: string;
  delayed_option?: 'timezone';
  url?: string;
  big_picture?: string;
  data?: Record<string, string>;
  buttons?: { id: string; text: string }[];
  throttle_rate_per_minute?: number;
  idempotency_key?: string;
  /** true cancels the send (as the REST DELETE does); deleting the Send object does not. */
  cancel?: boolean;
}

export interface SendStatus {
  id?: number;
  status?: SendState;
  total?: number;
  processed?: number;
  remaining?: number;
  sent?: number;
  failed?: number;
  skipped?: number;
  clicked?: number;
  message?: string;
  source?: 'api' | 'kubernetes' | 'dashboard';
  canceled?: boolean;
  observedGeneration?: number;
  conditions?: Condition[];
}

export type SendObject = KubeObject<SendSpec, SendStatus>;

export const SEND_PLURAL = 'sends';
export const SEND_KIND = 'Send';
/** On a mirror: the id of the REST send it shows (set at creation, so it is never submitted). */
export const SEND_ID_ANNOTATION = 'herald.dev/send-id';
/** On a mirror: when the REST send was made (retention counts from it). */
export const CREATED_AT_ANNOTATION = 'herald.dev/created-at';
export const SOURCE_LABEL = 'herald.dev/source';
export const APP_LABEL = 'herald.dev/app';
