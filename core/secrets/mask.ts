// Secrets written inside URLs, masked wherever a URL can reach a log line: the user
// info of any URL (`user:pass@`, `:pw@`, `token@`) and query parameters whose name says they
// carry a secret (`?password=`, `?token=`, `?sslkey=`…). Applied to the configuration logged at
// start-up and to every line the logger writes. Both regexes are linear (make lint-regex).

export const MASK = '***';

/** scheme://userinfo@ — the user info ends at the first @ before any /, space or quote. */
const USERINFO = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@"'<>]{1,512}@/gi;
/** ?name=value or &name=value (also ;name=value, as some drivers write). */
const PARAM = /([?&;])([\w.-]{1,64})=([^&;#\s"'<>]*)/g;
/** Parameter names that hold a secret: password, pass, pwd, token, secret, key, auth, signature… */
const SECRET_NAME = /pass|pwd|token|secret|key|auth|sig|credential/i;

/** `text` with every secret form of a URL it contains replaced by ***. */
export function maskUrlSecrets(text: string): string {
  if (!text.includes('@') && !text.includes('=')) return text; // the common log line: no work
  return text
    .replace(USERINFO, `$1${MASK}@`)
    .replace(PARAM, (whole, sep: string, name: string) => (SECRET_NAME.test(name) ? `${sep}${name}=${MASK}` : whole));
}
