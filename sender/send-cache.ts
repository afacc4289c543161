// What a sender keeps of a send between its chunks: the request and the app (read again after a
// minute, so a changed app is seen), and the APNs payload of each language, built once.
import type { Queryable } from '../core/store/db.js';
import type { AppRecord } from '../core/apps/app-store.js';
import type { SendRequest } from '../core/send-model/request.js';
import { loadSendForDelivery } from '../core/delivery/chunks.js';
import { buildApnsPayload } from '../core/payload/apns-payload.js';
import { pickLanguage } from '../core/payload/language.js';

export interface SendContext {
  sendId: number;
  request: SendRequest;
  app: AppRecord;
  /** Payloads by device language ('' for none). */
  payloads: Map<string, string>;
  at: number;
}

const SEND_CACHE_MS = 60_000;
/** Sends kept at most; the oldest goes first. */
const SEND_CACHE_SIZE = 1000;

export class SendCache {
  private readonly sends = new Map<number, SendContext>();

  constructor(private readonly db: Queryable) {}

  /** The send, or undefined once it was deleted (its chunks went with it). */
  async get(sendId: number): Promise<SendContext | undefined> {
    const known = this.sends.get(sendId);
    if (known && Date.now() - known.at < SEND_CACHE_MS) return known;
    const loaded = await loadSendForDelivery(this.db, sendId);
    if (!loaded) return undefined;
    const send = { sendId, ...loaded, payloads: new Map<string, string>(), at: Date.now() };
    this.sends.set(sendId, send);
    if (this.sends.size > SEND_CACHE_SIZE) this.sends.delete(this.sends.keys().next().value as number);
    return send;
  }

  /** A finished send: no chunk of it comes again. */
  forget(sendId: number): void {
    this.sends.delete(sendId);
  }
}

/** The send's payload for a device of this language (the contract's language fallback: pickLanguage). */
export function payloadFor(send: SendContext, language: string | null): string {
  return cachedPayload(send, language ?? '', send.request, language);
}

/** A push-to-start's payload without its broadcast channel (a device outside the channel's environment). */
export function payloadWithoutChannel(send: SendContext, language: string | null): string {
  const la = send.request.liveActivity;
  return cachedPayload(send, `\0no-channel:${language ?? ''}`, { ...send.request, liveActivity: la && { ...la, channelId: undefined } }, language);
}

function cachedPayload(send: SendContext, key: string, request: SendContext['request'], language: string | null): string {
  let payload = send.payloads.get(key);
  if (payload === undefined) {
    payload = buildApnsPayload(request, pickLanguage(request, language ?? undefined), { sendId: send.sendId });
    send.payloads.set(key, payload);
  }
  return payload;
}
