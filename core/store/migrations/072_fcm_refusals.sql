-- FCM's latest refusal of an App's stored service account (issue 39 point 5): the token endpoint
-- refusing its assertion, FCM answering THIRD_PARTY_AUTH_ERROR, 401 with a fresh token, or
-- PERMISSION_DENIED. Written by the sender that met it (at most once a minute per App), cleared when
-- FCM accepts the App's messages again; a refusal older than the credentials (refused_at <=
-- updated_at) concerns credentials since replaced. The controller and the dashboard read it for
-- the FcmCredentialsReady condition (core/fcm/refusals.ts).
ALTER TABLE fcm_credentials ADD COLUMN refused_reason text, ADD COLUMN refused_at timestamptz;
