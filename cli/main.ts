// The `herald` command: parses the command line and starts one role.
import { parseArgs } from 'node:util';
import { startRuntime, fail, usageError } from './runtime.js';
import { commandOf, commandPage, groupPage, usage, version } from './help.js';
import { StartupError } from './startup.js';
import { ConfigError } from '../core/config.js';

const OPTIONS = {
  file: { type: 'string', short: 'f' },
  app: { type: 'string' },
  'allow-ip': { type: 'string', multiple: true },
  name: { type: 'string' },
  scope: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  destination: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

/** `herald help [words]` and `--help`: the page of the command the words name, or the list. */
function printHelp(words: string[]): void {
  const known = commandOf(words);
  if (known) return void process.stdout.write(commandPage(known));
  const group = words.length ? groupPage(words[0]) : undefined;
  if (group) return void process.stdout.write(group);
  if (words.length) usageError(`no command ${words.join(' ')}; herald help lists them`);
  process.stdout.write(usage());
}

async function main(argv: string[]): Promise<void> {
  // --help asks for a page, whatever else the line holds: read loosely first, so an option of
  // another command (apns-sim's --port) or a half-typed one prints the page, not a usage error.
  const loose = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS });
  if (loose.values.help === true) return printHelp(loose.positionals);
  if (argv[0] === 'apns-sim') {
    return (await import('./commands/apns-sim.js')).runApnsSim(argv.slice(1)); // it parses its own flags
  }
  if (argv[0] === 'fcm-sim') {
    return (await import('./commands/fcm-sim.js')).runFcmSim(argv.slice(1));
  }
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const [command, sub, ...rest] = positionals;
  if (values.version || (command === 'version' && !sub)) return void process.stdout.write(`herald ${version()}\n`);
  if (command === 'help') return printHelp(positionals.slice(1));
  if (values.help) return printHelp(positionals);
  if (!command) usageError(`name a command\n\n${usage()}`);
  const admin = () => import('./commands/admin.js');
  switch (command) {
    case 'api':
      return (await import('./commands/api.js')).runApi(startRuntime('api'));
    case 'sender':
      return (await import('./commands/sender.js')).runSender(startRuntime('sender'));
    case 'controller':
      return (await import('./commands/controller.js')).runController(startRuntime('controller'));
    case 'dev':
      return (await import('./commands/dev.js')).runDev(startRuntime('dev'));
    case 'migrate':
      return (await import('./commands/migrate.js')).runMigrate();
    case 'apps':
      if (sub === 'apply') return (await admin()).appsApply(values.file);
      if (sub === 'list') return (await admin()).appsList();
      if (sub === 'overdue') return (await import('./commands/billing.js')).appsOverdue(values.app, rest[0]);
      if (sub === 'move-id') return (await import('./commands/app-id.js')).appsMoveId(values.app, rest[0]);
      if (sub === 'identity') return (await import('./commands/app-id.js')).appsIdentity(values.app, rest[0]);
      break;
    case 'keys':
      if (sub === 'create') return (await admin()).keysCreate(values.app, values['allow-ip'] ?? [], values.name, values.scope);
      if (sub === 'revoke') return (await admin()).keysRevoke(values.app, rest[0]);
      if (sub === 'list') return (await admin()).keysList(values.app);
      break;
    case 'credentials':
      if (sub === 'rotate-key') return (await import('./commands/credentials.js')).credentialsRotateKey();
      break;
    case 'import':
      return (await admin()).importFile(values.app, sub);
    case 'events':
      if (sub === 'replay' && !rest.length) return (await import('./commands/events.js')).eventsReplay(values);
      if (sub === 'replays' && !rest.length) return (await import('./commands/events.js')).eventsReplays(values.app);
      break;
  }
  const group = groupPage(command);
  usageError(group ? `${command} ${sub ?? ''} is not a command of ${command}:\n\n${group}` : `unknown command ${command}; herald help lists the commands`);
}

/** node:util's parse errors, in Herald's words (its own text suggests `--` tricks). */
function parseProblem(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return undefined;
  const option = /'(-[^' ]+)/.exec((error as Error).message)?.[1] ?? 'an option';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}; herald help lists each command's options`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `${option} needs a value`;
  return `the command line is not understood (${option}); herald help shows the usage`;
}

main(process.argv.slice(2)).catch((error) => {
  const problem = parseProblem(error);
  if (problem) usageError(problem);
  // A setting or a dependency that stops a role from starting: one line, exit 2 (cli/startup.ts).
  if (error instanceof StartupError || error instanceof ConfigError) fail(error.message, 2);
  const message = error instanceof Error ? error.message : String(error);
  fail(message);
});
