// The CLI's bundle loaded as bin/ksctl.js loads it, but by Node's own module loader with Node's
// compile cache (module.enableCompileCache, Node 22.1 and later) in KSCTL_BENCH_COMPILE_CACHE
// instead of ksctl's code cache (bin/code-cache.js): the startup group's row that compares the two.
'use strict';
const { enableCompileCache } = require('node:module');
const { join } = require('node:path');

enableCompileCache(process.env.KSCTL_BENCH_COMPILE_CACHE);
require(join(__dirname, '..', '..', 'dist', 'bundle', 'main.cjs')).main();
