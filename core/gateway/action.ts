// The gateway port's outcome vocabulary (plan: "Gateways behind one port"): every gateway adapter
// (APNs today, FCM next) maps each device's answer to exactly one of these, in one table of its
// own (sender/outcomes.ts for APNs), and the sender's rounds, holds and counts read only these.
//
// | kind          | meaning                                                                 |
// | sent          | the gateway accepted the device                                         |
// | failed        | the gateway refused the device; the token is kept                       |
// | unsubscribe   | failed, and the token is dead: the install is unsubscribed              |
// | retry         | this device, later (bounded, then failed)                               |
// | hold          | no decision: the gateway is out; never counted failed                   |
// | stop          | the App's credentials are refused                                       |
export type Action =
  | { kind: 'sent' }
  | { kind: 'failed'; reason: string }
  | { kind: 'unsubscribe'; reason: string; appleTimestampMs?: number }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'hold'; reason: string; retryAfterMs?: number }
  | { kind: 'stop'; reason: string };
