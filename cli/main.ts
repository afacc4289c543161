// The `herald` command: parses the command line and starts one role.
import { parseArgs } from 'node:util';
import { startRuntime, fail } from './runtime.js';
import { StartupError } from './startup.js';
import { ConfigError } from '../core/config.js';

const USAGE = `usage: herald <command>

  api                       the HTTP front (REST send and stats, SDK calls)
  sender                    the delivery worker
  controller                the Kubernetes operator
  migrate                   apply database migrations
  dev                       everything in one process, for a laptop
  apns-sim                  an APNs provider-API simulator

  apps apply -f FILE        apply App manifests (and their Secrets) without a cluster
  apps overdue --app NAME true|false   mark an app's invoice overdue (pauses delivery) or paid
  apps move-id --app NAMESPACE/NAME APP_ID   let another App take over an app id (admin approval)
  apps identity --app NAME issue|on|off      identity verification of the SDK calls (issue prints the secret once)
  keys create --app NAME [--allow-ip CIDR]... [--name NAME] [--scope send|read]
  keys revoke --app NAME KEY_ID
  keys list --app NAME
  import --app NAME FILE    bulk-load subscriptions from NDJSON
  credentials rotate-key    seal stored APNs credentials with HERALD_ENCRYPTION_KEY

Settings come from HERALD_* environment variables (see docs/configuration.md).
`;

async function main(argv: string[]): Promise<void> {
  // The simulator parses its own flags.
  if (argv[0] === 'apns-sim') return (await import('./commands/apns-sim.js')).runApnsSim(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      file: { type: 'string', short: 'f' },
      app: { type: 'string' },
      'allow-ip': { type: 'string', multiple: true },
      name: { type: 'string' },
      scope: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return;
  }
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
  }
  fail(`unknown command: ${positionals.join(' ')}\n\n${USAGE}`, 2);
}

main(process.argv.slice(2)).catch((error) => {
  // A setting or a dependency that stops a role from starting: one line, exit 2 (cli/startup.ts).
  if (error instanceof StartupError || error instanceof ConfigError) fail(error.message, 2);
  const message = error instanceof Error ? error.message : String(error);
  fail(message);
});
