import { randomBytes } from 'node:crypto';
import { MemoryBucketStore } from './memory-store.js';
import { bucketStoreContract } from './store.contract.js';

bucketStoreContract('memory', async () => {
  let now = 1_700_000_000_000;
  return { store: new MemoryBucketStore({ clock: () => now }), advance: (ms) => { now += ms; }, prefix: randomBytes(4).toString('hex') };
});
