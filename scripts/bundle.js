// Bundles the CLI into dist/bundle: one file for start-up, with every lazily loaded command in
// its own chunk. Loading ksctl's ~100 modules and its dependencies' (undici and conf are many
// small CommonJS files) one by one costs more than the work of most commands.
import { build } from 'esbuild';

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
  logLevel: 'warning',
});
