/**
 * The store contract's fixture on Redis (store.redis.test.ts, store.sentinel.test.ts): a store
 * under its own key prefix, and peers on the same prefix as further server processes would be.
 */
import { RedisStore } from '../../server/store/redis.js';
import type { StoreFixture } from './store.js';

export async function redisFixture(url: string, keyPrefix: string): Promise<StoreFixture> {
  const store = await RedisStore.connect({ url, keyPrefix });
  const peers: RedisStore[] = [];
  return {
    store,
    peer: async () => {
      const peer = await RedisStore.connect({ url, keyPrefix });
      peers.push(peer);
      return peer;
    },
    cleanup: async () => {
      await Promise.all(peers.map((p) => p.close()));
      await store.close();
    },
  };
}
