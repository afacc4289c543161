// What `herald help`, `herald --help` and `herald COMMAND --help` print: one entry per command,
// the summary line of the global usage and the page of the command, written once here.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APNS_SIM_USAGE } from '../apns-sim/command.js';
import { FCM_SIM_USAGE } from '../fcm-sim/command.js';
import { KEY_SCOPES, SCOPE_MEANINGS } from '../core/apps/keys.js';

interface CommandHelp {
  /** The words that name it: ['apps', 'apply']. */
  words: string[];
  synopsis: string;
  summary: string;
  /** The page of `herald COMMAND --help`, after the synopsis. */
  page?: string;
}

const ROLE_PAGE = 'Settings come from HERALD_* environment variables (docs/configuration.md); the role runs until SIGTERM.';

export const COMMANDS: CommandHelp[] = [
  { words: ['api'], synopsis: 'herald api', summary: 'the HTTP front (REST send and stats, SDK calls, dashboard)', page: ROLE_PAGE },
  { words: ['sender'], synopsis: 'herald sender', summary: 'the delivery worker', page: ROLE_PAGE },
  { words: ['controller'], synopsis: 'herald controller', summary: 'the Kubernetes operator (App and Send objects)', page: ROLE_PAGE },
  { words: ['migrate'], synopsis: 'herald migrate', summary: 'apply database migrations', page: 'Applies the schema migrations HERALD_DATABASE_URL lacks, each once, then exits.' },
  { words: ['dev'], synopsis: 'herald dev', summary: 'everything in one process, for a laptop', page: 'api, sender and scheduler in one process, with the APNs simulator unless HERALD_APNS_URL is set. `make dev` starts the services and a demo app first.' },
  { words: ['apns-sim'], synopsis: 'herald apns-sim [flags]', summary: "an APNs provider-API simulator", page: APNS_SIM_USAGE.split('\n').slice(1).join('\n') },
  { words: ['fcm-sim'], synopsis: 'herald fcm-sim [flags]', summary: 'an FCM HTTP v1 and token endpoint simulator', page: FCM_SIM_USAGE.split('\n').slice(1).join('\n') },
  {
    words: ['apps', 'apply'],
    synopsis: 'herald apps apply -f FILE',
    summary: 'apply App manifests (and their Secrets) without a cluster',
    page: 'FILE holds App objects and the Secrets they name, as YAML documents (docs/operator.md). Prints each app name and app id.',
  },
  { words: ['apps', 'list'], synopsis: 'herald apps list', summary: 'every app: name, app id, environment, credentials, billing' },
  {
    words: ['apps', 'overdue'],
    synopsis: 'herald apps overdue --app NAME true|false',
    summary: "mark an app's invoice overdue (pauses delivery) or paid",
  },
  {
    words: ['apps', 'move-id'],
    synopsis: 'herald apps move-id --app NAMESPACE/NAME APP_ID',
    summary: 'let another App take over an app id (admin approval)',
  },
  {
    words: ['apps', 'identity'],
    synopsis: 'herald apps identity --app NAME issue|on|off',
    summary: 'identity verification of the SDK calls (issue prints the secret once)',
  },
  {
    words: ['keys', 'create'],
    synopsis: `herald keys create --app NAME [--allow-ip CIDR]... [--name NAME] [--scope ${KEY_SCOPES.join('|')}]`,
    summary: 'issue a REST API key (printed once)',
    page: `--scope (default send) says what the key may do:
${KEY_SCOPES.map((s) => `  ${s.padEnd(6)} ${SCOPE_MEANINGS[s]}`).join('\n')}
--allow-ip (repeatable) limits the addresses it may be used from; none: any. The key is printed
alone on standard output, once; only its SHA-256 is kept. docs/dashboard.md "Settings".`,
  },
  { words: ['keys', 'revoke'], synopsis: 'herald keys revoke --app NAME KEY_ID', summary: 'revoke a key' },
  { words: ['keys', 'list'], synopsis: 'herald keys list --app NAME', summary: "an app's keys (never the key itself), where each was made and when it was last used" },
  {
    words: ['import'],
    synopsis: 'herald import --app NAME FILE',
    summary: 'bulk-load subscriptions from NDJSON (FILE or - for stdin)',
    page: `One JSON object a line, the fields of the SDK's register call:
  token        the APNs device token in hex, or for android the FCM registration token (required)
  platform     ios (default) or android
  id           the subscription id, a UUID (default: a new one)
  external_id  the app's user id, up to 128 characters
  language     a language code such as en or pt-BR
  timezone     an IANA time zone such as Europe/Paris
  tags         an object of tag keys and values (values kept as text)
  subscribed   true or false (default true)
Example:
  {"token":"4f1c2a7be3d9086f5c41aa07b29e6d13c8f5e2a94b1d07c6e38f29a5d41b7c09","external_id":"user-42","language":"fr","timezone":"Europe/Paris","tags":{"plan":"gold"}}
  {"platform":"android","token":"dQw4w9WgXcQ:APA91bH-example_token","external_id":"user-42"}
A token already known is updated, not duplicated (one the app has under the other platform is left
as it is and reported). Refused lines are counted and the first ones printed with the reason; the
rest of the file is imported.`,
  },
  {
    words: ['events', 'replay'],
    synopsis: 'herald events replay --app APP --from TIME --to TIME [--destination NAME]',
    summary: "deliver an app's recorded events of a time range again (same event ids)",
    page: `APP is the app's name or id; TIME an ISO 8601 time (2026-11-25T14:00:00Z, or a date,
2026-11-25, for its midnight UTC). Every destination of the app (or the one named) receives the
events recorded in the range again, with the same event.id (receivers deduplicate on it) under
new webhook-ids; the destination's own place does not move. The senders deliver it; the command
prints the progress until it is done (Ctrl-C stops following, not the replay). Events are kept
7 days for a replay (at most HERALD_CHUNK_RETENTION_DAYS); one replay per destination at a time.`,
  },
  { words: ['events', 'replays'], synopsis: 'herald events replays --app APP', summary: "an app's replays and their progress" },
  { words: ['credentials', 'rotate-key'], synopsis: 'herald credentials rotate-key', summary: 'seal stored APNs credentials with HERALD_ENCRYPTION_KEY' },
  { words: ['help'], synopsis: 'herald help [COMMAND]', summary: 'this list, or the page of one command' },
  { words: ['version'], synopsis: 'herald version', summary: "Herald's version (also herald --version)" },
];

export function usage(): string {
  // A synopsis longer than the column puts its summary on the next line.
  const width = 40;
  const lines = COMMANDS.map((c) => {
    const synopsis = c.synopsis.slice('herald '.length);
    return synopsis.length <= width - 4 ? `  ${synopsis.padEnd(width - 2)}${c.summary}` : `  ${synopsis}\n  ${''.padEnd(width - 2)}${c.summary}`;
  });
  return `usage: herald <command> [options]      herald --version

${lines.join('\n')}

herald COMMAND --help shows one command. Settings come from HERALD_* environment variables
(docs/configuration.md).
`;
}

/** The command named by the leading words, or undefined. */
export function commandOf(words: string[]): CommandHelp | undefined {
  return COMMANDS.find((c) => c.words.every((w, i) => words[i] === w));
}

export function commandPage(command: CommandHelp): string {
  return `usage: ${command.synopsis}\n\n${command.summary[0].toUpperCase()}${command.summary.slice(1)}.\n${command.page ? `\n${command.page}\n` : ''}`;
}

/** The commands that start with a word, for `herald apps --help`. */
export function groupPage(word: string): string | undefined {
  const group = COMMANDS.filter((c) => c.words[0] === word && c.words.length > 1);
  return group.length ? `usage:\n${group.map((c) => `  ${c.synopsis}\n      ${c.summary}`).join('\n')}\n` : undefined;
}

/** Herald's version, from the package.json above this file (in a checkout and in the image). */
export function version(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'herald' && pkg.version) return pkg.version;
    } catch {
      // not here: one level up
    }
  }
  return 'unknown';
}
