// FCM's size rule (issue 39 point 3; /work/shared/design/FCM.md "Sending"): a message over 4,096
// bytes is refused with INVALID_ARGUMENT. What counts is the message as JSON without its target
// (`token`): the token is the address, not the payload, and the longest registration token alone
// (4,096 characters, core/formats/fcm-token.ts) would otherwise fill it. The send's validation
// (the 422 naming the platform), fcm-sim and the sender read the rule from here.

export const FCM_MAX_MESSAGE_BYTES = 4096;

/** The bytes FCM counts of `message` (the `message` object of a messages:send body). */
export function fcmMessageBytes(message: Record<string, unknown>): number {
  const { token: _target, ...payload } = message;
  return Buffer.byteLength(JSON.stringify(payload));
}

export function fitsFcm(message: Record<string, unknown>): boolean {
  return fcmMessageBytes(message) <= FCM_MAX_MESSAGE_BYTES;
}
