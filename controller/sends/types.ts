// The Send custom resource (crds/sends.herald.dev.yaml) as the controller reads and writes it.
import type { Static } from 'typebox';
import type { SendBodySchema } from '../../core/validation/send-body-schema.js';
import type { KubeObject } from '../kube/client.js';
import type { Condition } from '../kube/conditions.js';
import type { SendStatus } from '../../core/send-model/states.js';
import type { SendSource } from '../../core/formats/send-source.js';

/**
 * The REST body's fields (same snake_case names, from the body's one schema), with appRef in
 * place of app_id, and `cancel`: true cancels the send (as the REST DELETE does); deleting the
 * Send object does not.
 */
export type SendSpec = Omit<Static<typeof SendBodySchema>, 'app_id'> & { appRef: { name: string }; cancel?: boolean };

/** The Send object's `.status`: the REST send it shows, its counters and conditions (a send's own status is core's SendStatus). */
export interface SendObjectStatus {
  id?: number;
  status?: SendStatus;
  total?: number;
  processed?: number;
  remaining?: number;
  sent?: number;
  failed?: number;
  skipped?: number;
  clicked?: number;
  message?: string;
  source?: SendSource;
  canceled?: boolean;
  observedGeneration?: number;
  conditions?: Condition[];
}

export type SendObject = KubeObject<SendSpec, SendObjectStatus>;

export const SEND_PLURAL = 'sends';
export const SEND_KIND = 'Send';
/** On a mirror: the id of the REST send it shows (set at creation, so it is never submitted). */
export const SEND_ID_ANNOTATION = 'herald.dev/send-id';
/** On a mirror: when the REST send was made (retention counts from it). */
export const CREATED_AT_ANNOTATION = 'herald.dev/created-at';
export const SOURCE_LABEL = 'herald.dev/source';
export const APP_LABEL = 'herald.dev/app';
