/**
 * The import structure of src/: imports run one way. Every file belongs to a layer, and a file
 * imports only from its own layer or a lower one; no files import each other in a circle (type
 * imports and lazy `import()` count: they tie the files as much as any other import).
 *
 * LAYERS is the one place the order is written. A new file takes the layer of the most specific
 * pattern that names it: a new folder needs a line here, in the layer it belongs to.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Lowest first. A pattern is a file, a folder (ending in `/`: everything under it) or a file name
 * with `*` in it; the longest pattern that matches a file decides its layer.
 */
const LAYERS: readonly (readonly string[])[] = [
  // ---- The floor (src/common/): what both wings speak. It imports nothing of either wing.
  // Errors, the package's root, sleeping.
  ['common/'],
  // Text for messages: quoting, plurals, wrapping to the terminal, "did you mean".
  ['common/text/'],
  ['common/encoding/'],
  // Bounded reads, atomic writes, locks.
  ['common/files/'],
  // What every service's HTTP answers share: the error body, redaction, introspection.
  ['common/http/'],
  // Each service's wire and rules, as the client sends them and the mock checks them.
  ['common/markings/'],
  ['common/enrollment/'],
  ['common/device/'],
  // The mock's own API (`/_mock/...`), which the client and the console read.
  ['common/mock/'],

  // ---- The service wing (src/mock/).
  // The mock's floor: HTTP plumbing, the request journal, and the hook every store reports its
  // changes through.
  [
    'mock/http.ts',
    'mock/json-worker.ts',
    'mock/changes.ts',
    'mock/ids.ts',
    'mock/request-journal*.ts',
    'mock/bounded-log.ts',
    'mock/pacing.ts',
    'mock/json-pieces.ts',
    'mock/cors.ts',
    'mock/local-ca.ts',
  ],
  // The durable state's files (`--state`): it takes and gives records, and knows no model.
  ['mock/persistence/'],
  // Each side's model: its store, its rules and its part of the state. No routes.
  [
    'mock/markings/store.ts',
    'mock/markings/indexed.ts',
    'mock/markings/values-plan.ts',
    'mock/markings/stored.ts',
    'mock/markings/packed.ts',
    'mock/markings/deferred.ts',
    'mock/markings/specs.ts',
    'mock/markings/fields.ts',
    'mock/markings/filter-match.ts',
    'mock/markings/wire-form.ts',
    'mock/device/store.ts',
    'mock/device/attributes.ts',
    'mock/enrollment/store.ts',
    'mock/enrollment/tokens.ts',
    'mock/enrollment/errors.ts',
    'mock/enrollment/key-server-key.ts',
    'mock/enrollment/service-side.ts',
    'mock/admin/faults.ts',
    'mock/seed-rules.ts',
  ],
  // The whole mock's model: the sides' models composed.
  ['mock/state.ts'],
  // What works on the model below the routes: authentication, the start-up state, a journaled
  // request's detail, and the durable state's wiring (records to and from the model).
  ['mock/auth.ts', 'mock/seed.ts', 'mock/request-detail.ts', 'mock/durable-state.ts'],
  // Each side's routes and the route table (mock/routes.ts), with the plumbing of a request
  // around them (mock/request.ts, mock/protocol-errors.ts).
  ['mock/'],
  // The console: its pages, its API and its event streams.
  ['mock/console/'],
  // The mock server: the factory that wires routes, state and persistence to a port; and the
  // recording proxy of `ksctl mock record`, which serves the console over its own journal.
  ['mock/server.ts', 'mock/server-*.ts', 'mock/recorder.ts'],

  // ---- The client wing (src/client/).
  // The HTTP client.
  ['client/api/'],
  // The profile files and their formats.
  ['client/profiles/'],
  // Rendering: tables, JSON and YAML, progress, the terminal.
  ['client/output/'],
  // The markings client: its interface, its HTTP implementation, its views, the logic commands share.
  ['client/markings/'],
  // Contexts and settings.
  ['client/config/'],
  // The enrollment protocol.
  ['client/enroll/'],
  // Markings files: plan, apply, export.
  ['client/apply/'],
  // Device requests with an enrolled profile.
  ['client/device/'],
  // The use cases both faces call: enroll, apply, export, keys, starting the mock.
  ['client/usecases/'],
  // The conformance check: the service against a fresh embedded mock, or a recording replayed.
  ['client/conformance/'],
  // The library's entry points (`ksctl`, `ksctl/mock`).
  ['client/lib/'],
  // What every command uses: the command context, option parsers, help, prompts, completion.
  ['client/cli/kit/'],
  // The command definitions (commander) and the actions they load lazily.
  ['client/cli/commands/'],
  // The program and the process entry.
  ['client/cli/'],
];

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `a/b.ts`, relative to src/, with forward slashes. */
const name = (path: string) => relative(SRC, path).split(sep).join('/');

function matches(pattern: string, file: string): boolean {
  if (pattern.endsWith('/')) return file.startsWith(pattern);
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  return new RegExp(`^${source}$`).test(file);
}

/** The layer of the longest pattern that matches, or undefined. */
function layerOf(file: string): number | undefined {
  let best: { layer: number; length: number } | undefined;
  LAYERS.forEach((patterns, layer) => {
    for (const pattern of patterns) {
      if (matches(pattern, file) && (best === undefined || pattern.length > best.length))
        best = { layer, length: pattern.length };
    }
  });
  return best?.layer;
}

/** The src/ files each file imports: static, `export ... from`, type-only and `import()`. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const path of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) =>
        posix.normalize(posix.join(posix.dirname(name(path)), specifier)).replace(/\.js$/, '.ts'),
      );
    graph.set(name(path), [...new Set(targets)]);
  }
  return graph;
}

/** Groups of files that import each other in a loop (Tarjan's strongly connected components). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== file);
      const selfImport = graph.get(file)?.includes(file) === true;
      if (group.length > 1 || selfImport) found.push(group.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/**
 * The two wings and their floor: the client wing (client/) reaches the service wing (mock/) through
 * one door, the use case that runs the mock; the service wing imports nothing of the client; the
 * floor (common/) imports neither wing.
 */
const MOCK_DOOR = 'client/usecases/mock.ts';

/** Imports that cross between the wings, or up from the floor, other than through the door. */
function wingCrossings(graph: Map<string, string[]>): string[] {
  const wing = (file: string) => file.split('/')[0];
  const allowed = (file: string, target: string): boolean => {
    const [from, to] = [wing(file), wing(target)];
    if (from === 'common') return to === 'common';
    if (from === 'mock') return to !== 'client';
    if (from === 'client' && to === 'mock') return file === MOCK_DOOR;
    return true;
  };
  return [...graph].flatMap(([file, targets]) =>
    targets.filter((target) => !allowed(file, target)).map((target) => `${file} -> ${target}`),
  );
}

describe('the import structure of src/', () => {
  const graph = importGraph();

  it('reads the imports: static, type-only and lazy ones', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('client/cli/main.ts')).toContain('client/cli/program.ts');
    expect(graph.get('client/cli/commands/api.ts')).toContain('client/cli/commands/api-actions.ts');
    expect(graph.get('client/cli/commands/api.ts')).toContain('client/cli/kit/command-context.ts');
  });

  it('every import names a file that exists', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => !graph.has(target) && !target.endsWith('.d.ts'))
        .map((t) => `${file} -> ${t}`),
    );
    expect(missing).toEqual([]);
  });

  it('every file has a layer', () => {
    const unplaced = [...graph.keys()].filter((file) => layerOf(file) === undefined);
    expect(unplaced, 'add these to LAYERS in test/unit/layers.test.ts').toEqual([]);
  });

  it('no import goes up a layer', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => graph.has(target) && layerOf(target)! > layerOf(file)!)
        .map(
          (target) => `${file} (layer ${layerOf(file)}) -> ${target} (layer ${layerOf(target)})`,
        ),
    );
    expect(upward).toEqual([]);
  });

  it(`the client reaches the mock only through ${MOCK_DOOR}; the mock and the floor import no wing above`, () => {
    expect(graph.has(MOCK_DOOR)).toBe(true);
    expect(wingCrossings(graph)).toEqual([]);
  });

  it('finds an import that crosses the wings', () => {
    const made = new Map([
      [MOCK_DOOR, ['mock/server.ts', 'common/errors.ts']],
      ['client/lib/mock.ts', ['client/usecases/mock.ts', 'mock/seed.ts']],
      ['mock/server.ts', ['common/errors.ts', 'client/api/client.ts']],
      ['common/errors.ts', []],
      ['common/text/words.ts', ['mock/state.ts', 'client/output/render.ts']],
    ]);
    expect(wingCrossings(made)).toEqual([
      'client/lib/mock.ts -> mock/seed.ts',
      'mock/server.ts -> client/api/client.ts',
      'common/text/words.ts -> mock/state.ts',
      'common/text/words.ts -> client/output/render.ts',
    ]);
  });

  it('no files import each other in a circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('finds a circle and an upward import when there is one', () => {
    const made = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
    ]);
    expect(circles(made)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(layerOf('common/errors.ts')).toBeLessThan(layerOf('client/cli/main.ts')!);
    expect(layerOf('mock/state.ts')).toBeGreaterThan(layerOf('mock/markings/store.ts')!);
    expect(layerOf('mock/server.ts')).toBeGreaterThan(layerOf('mock/persistence/durable.ts')!);
    // Inside the mock: persistence below the models, each side's model below the state, the
    // state below the routes, the routes below the console and the server.
    expect(layerOf('mock/persistence/durable.ts')).toBeLessThan(layerOf('mock/device/store.ts')!);
    expect(layerOf('mock/markings/indexed.ts')).toBeLessThan(layerOf('mock/state.ts')!);
    expect(layerOf('mock/state.ts')).toBeLessThan(layerOf('mock/durable-state.ts')!);
    expect(layerOf('mock/auth.ts')).toBeLessThan(layerOf('mock/markings/routes.ts')!);
    expect(layerOf('mock/enrollment/admin-routes.ts')).toBeLessThan(
      layerOf('mock/console/api.ts')!,
    );
    expect(layerOf('mock/console/app.ts')).toBeLessThan(layerOf('mock/server-answers.ts')!);
  });
});
