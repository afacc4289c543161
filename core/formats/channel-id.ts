// Apple's broadcast channel id (Apple, "Sending channel management requests to APNs"): base64 text
// of 16 bytes, 24 characters with padding. One rule for the simulator that issues them and the
// client that receives them (it goes into a DB column, a push-to-start payload and a header).
const CHANNEL_ID = /^[A-Za-z0-9+/]{22}==$/;

export function isChannelId(id: string): boolean {
  return CHANNEL_ID.test(id);
}
