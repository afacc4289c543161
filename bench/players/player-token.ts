// The APNs token of imported player `i` of bench/players: 64 hex digits, the same in the import
// and in the load generator, so "known token" requests name installs that exist.
export const playerToken = (i: number): string => `b0${i.toString(16).padStart(62, '0')}`;
