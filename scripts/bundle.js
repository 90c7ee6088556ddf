// Bundles the CLI into dist/bundle: one file for start-up, with every lazily loaded command in
// its own chunk. Loading ksctl's ~100 modules and its dependencies' (undici and conf are many
// small CommonJS files) one by one costs more than the work of most commands.
import { constants as http2Constants } from 'node:http2';
import { build } from 'esbuild';

/**
 * undici's HTTP/2 client loads node:http2 (and with it node:tls) as it is imported, for its
 * constants: 10-30 ms of every command, for a protocol ksctl never negotiates (undici speaks
 * HTTP/1.1 unless allowH2 is set). Its copy gets the constants' values, taken here, and the real
 * module only if a session is ever opened.
 */
const lazyHttp2 = {
  name: 'lazy-http2',
  setup(bundle) {
    bundle.onResolve({ filter: /^node:http2$/ }, (args) =>
      /undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/.test(args.importer)
        ? { path: 'node:http2', namespace: 'lazy-http2' }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'lazy-http2' }, () => ({
      contents: `module.exports = {
  constants: ${JSON.stringify(http2Constants)},
  connect: (...args) => require('node:http2').connect(...args),
};`,
      loader: 'js',
    }));
  },
};

await build({
  // The mock's crypto threads load their own entry (found next to the chunks at run time).
  entryPoints: {
    main: 'src/cli/main.ts',
    'crypto-worker': 'src/mock/enrollment/crypto-worker.ts',
  },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // CommonJS dependencies call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __ksctlRequire } from 'node:module'; const require = __ksctlRequire(import.meta.url);",
  },
  // Dynamically imported CommonJS packages whose named exports we use: in a split bundle esbuild
  // gives them a default export only, Node's own loader gives the names.
  external: ['yaml'],
  plugins: [lazyHttp2],
  logLevel: 'warning',
});
