// The segments every app has (OneSignal's names; their conditions: core/audience/filter.ts), and
// the older names the official clients still send for the first of them. A custom segment is
// defined on the App (core/apps/manifest.ts).

export const BUILT_IN_SEGMENTS = ['Subscribed Users', 'Active Users', 'Inactive Users'] as const;

/** Active Users were active (a session) within this many days; Inactive Users were not. */
export const ACTIVE_DAYS = 7;
export type BuiltInSegment = (typeof BUILT_IN_SEGMENTS)[number];

/** Every subscribed install: the segment a form starts on and the older names stand for. */
export const EVERYONE: BuiltInSegment = 'Subscribed Users';

/** "Subscribed Users, Active Users, Inactive Users", for the messages that list them. */
export const BUILT_IN_SEGMENT_LIST = BUILT_IN_SEGMENTS.join(', ');

const OLDER_NAMES = new Map<string, BuiltInSegment>([
  ['All', EVERYONE],
  ['All Subscribers', EVERYONE],
]);

export function isBuiltInSegment(name: string): name is BuiltInSegment {
  return (BUILT_IN_SEGMENTS as readonly string[]).includes(name);
}

/** The segment a given name stands for: an older name's built-in segment, else the name itself. */
export function segmentNamed(name: string): string {
  return OLDER_NAMES.get(name) ?? name;
}
