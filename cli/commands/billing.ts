// `herald apps overdue --app NAME true|false`: marks an app's invoice overdue (delivery pauses:
// no new chunk starts, running sends close by the contract's pause rule) or paid, without a
// cluster. With a cluster the App resource's spec.billing.invoiceOverdue does the same.
import { setInvoiceOverdue } from '../../core/apps/app-store.js';
import { appByName, withPool } from './admin.js';
import { stopOverdueSends } from '../../core/delivery/finish.js';
import { usageError } from '../runtime.js';

export async function appsOverdue(appName: string | undefined, value: string | undefined): Promise<void> {
  if (!appName || (value !== 'true' && value !== 'false')) usageError('usage: herald apps overdue --app NAME true|false');
  await withPool(async (pool) => {
    const app = await appByName(pool, appName);
    const overdue = value === 'true';
    await setInvoiceOverdue(pool, app.id, overdue);
    // Senders see the flag at their next chunk; closing the running sends now spares the wait.
    const stopped = overdue ? await stopOverdueSends(pool, app.id) : [];
    process.stdout.write(
      overdue
        ? `${app.name}: invoice overdue, delivery paused${stopped.length ? ` (stopped sends ${stopped.join(', ')})` : ''}\n`
        : `${app.name}: invoice paid, delivery resumed for new sends\n`,
    );
  });
}
