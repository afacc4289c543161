// The push types a send may choose besides alert and background, each going to a token of its own
// that an install registers apart from its alert token (issue 29; docs/api.md "Push types"). A leaf,
// so the send model, the validator and the payload table (core/payload/push-types.ts) share it.

export const OWN_TOKEN_PUSH_TYPES = ['voip', 'location', 'complication', 'pushtotalk', 'widgets', 'controls'] as const;
export type OwnTokenPushType = (typeof OWN_TOKEN_PUSH_TYPES)[number];

export function isOwnTokenPushType(value: unknown): value is OwnTokenPushType {
  return (OWN_TOKEN_PUSH_TYPES as readonly unknown[]).includes(value);
}
