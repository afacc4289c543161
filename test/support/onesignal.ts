// The official client @onesignal/node-onesignal pointed at a test api (only its base server
// changed), and the refusal a call ends in, for tests that drive Herald as a OneSignal user would.
import * as OneSignal from '@onesignal/node-onesignal';

export function officialClient(apiUrl: string, key: string): OneSignal.DefaultApi {
  return new OneSignal.DefaultApi(OneSignal.createConfiguration({ restApiKey: key, baseServer: new OneSignal.ServerConfiguration(`${apiUrl}/api/v1`, {}) }));
}

/** The status and body of the ApiException a call throws; fails when the call succeeds. */
export async function refused(call: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof OneSignal.ApiException) return { code: error.code, body: error.body };
    throw error;
  }
  throw new Error('the call was not refused');
}
