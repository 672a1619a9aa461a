// Preloaded into each crypto worker thread (`execArgv: ['--import', <this file>]`, set by
// server/crypto/pool.ts) so the worker can import TypeScript. Node 20 worker threads do not get
// the module hooks tsx registered in the parent: with only the inherited execArgv, importing
// workers/crypto.ts fails with ERR_UNKNOWN_FILE_EXTENSION. Registering here makes a worker start
// take ~330 ms instead of ~35 ms for a plain .mjs worker (measured, 2 vCPU); paid once per thread.
import { register } from 'tsx/esm/api';

register();
