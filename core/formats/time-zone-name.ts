// An IANA time zone name as the install and user calls take it (`timezone`, `timezone_id`): the
// longest name in tzdata is 32 characters; 64 bounds the field with room. Whether the name is a
// zone this machine knows is core/time/zone-clock.ts's check.

export const TIME_ZONE_NAME_MAX_CHARS = 64;
