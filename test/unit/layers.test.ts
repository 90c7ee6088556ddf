/**
 * The import structure of src/: imports run one way. src/ is two wings over one floor: the client
 * (src/client/), the service (src/mock/), and what both speak (src/common/). Every folder is a
 * layer, and a file imports only from its own folder or from a folder lower in LAYERS; no files
 * import each other in a circle (type imports and lazy `import()` count: they tie the files as
 * much as any other import).
 *
 * LAYERS is the one place the order is written, and docs/architecture.md shows the same list
 * (a test below holds them together). A new folder needs a line here, where it belongs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** The folders of src/, lowest first. A file belongs to the deepest folder that holds it. */
export const LAYERS: readonly string[] = [
  // ---- The floor (src/common/): what both wings speak. It imports nothing of either wing.
  // Errors, the package's root, sleeping.
  'common/',
  // Text for messages: quoting, plurals, wrapping to the terminal, "did you mean".
  'common/text/',
  'common/encoding/',
  // Bounded reads, atomic writes, locks.
  'common/files/',
  // What every service's HTTP answers share: the error body, redaction, introspection.
  'common/http/',
  // Each service's wire and rules, as the client sends them and the mock checks them.
  'common/markings/',
  'common/enrollment/',
  'common/device/',
  // The mock's own API (`/_mock/...`), which the client and the console read.
  'common/mock/',

  // ---- The service wing (src/mock/). Each side's model below its routes, the server on top.
  // The mock's floor: HTTP errors, routes as values, off-thread JSON, pacing, ids, CORS, local CA.
  'mock/kit/',
  // The request journal: what was asked and answered, filtered, paged and scrubbed of secrets.
  'mock/journal/',
  // The durable state's files (`--state`): it takes and gives records, and knows no model.
  'mock/persistence/',
  // Faults and latency: the rules an admin sets and the hits they count.
  'mock/model/admin/',
  // The markings model: each tenant's markings and values, their rules, their packed form.
  'mock/model/markings/',
  // The enrollment model: keyspaces, tokens, devices, the key server's key and its RSA work.
  'mock/model/enrollment/',
  // The device model: keys and their attributes, the devices' messages.
  'mock/model/device/',
  // The console's sign-in: one-time codes, sessions and their CSRF tokens (in memory only).
  'mock/model/console/',
  // The whole mock's model: the sides composed, the start-up state, its records on disk.
  'mock/model/',
  // A request's plumbing: from Node's request to the routes', who may call, errors as answers.
  'mock/request/',
  // A journaled request described: envelopes opened, packages inspected.
  'mock/request-detail/',
  // Each side's routes, one family a folder.
  'mock/routes/markings/',
  'mock/routes/enrollment/',
  'mock/routes/device/',
  'mock/routes/admin/',
  'mock/routes/console/',
  // The route table: every family, each route with who may call it.
  'mock/routes/',
  // The server that wires the table, the state and persistence to a port; the recording proxy.
  'mock/server/',

  // ---- The client wing (src/client/).
  // The HTTP client.
  'client/api/',
  // The profile files and their formats.
  'client/profiles/',
  // Rendering: tables, JSON and YAML, progress, the terminal.
  'client/output/',
  // The markings client: its interface, its HTTP implementation, its views, the logic commands share.
  'client/markings/',
  // Contexts and settings.
  'client/config/',
  // The enrollment protocol.
  'client/enroll/',
  // Markings files: plan, apply, export.
  'client/apply/',
  // Device requests with an enrolled profile.
  'client/device/',
  // The use cases both faces call: enroll, apply, export, keys, starting the mock.
  'client/usecases/',
  // The conformance check: the service against a fresh embedded mock, or a recording replayed.
  'client/conformance/',
  // The library's entry points (`ksctl`, `ksctl/mock`).
  'client/lib/',
  // What every command uses: the command context, option parsers, help, prompts, completion.
  'client/cli/kit/',
  // The command definitions (commander) and the actions they load lazily.
  'client/cli/commands/',
  // The program and the process entry.
  'client/cli/',
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

/** The layer of the deepest folder of LAYERS that holds the file, or undefined. */
function layerOf(file: string): number | undefined {
  let best: number | undefined;
  LAYERS.forEach((folder, layer) => {
    if (file.startsWith(folder) && (best === undefined || folder.length > LAYERS[best]!.length))
      best = layer;
  });
  return best;
}

/** The folders of src/ that hold a source file, as LAYERS writes them. */
function codeFolders(): string[] {
  return [...new Set(sourceFiles(SRC).map((path) => `${posix.dirname(name(path))}/`))]
    .filter((folder) => folder !== './')
    .sort();
}

/** The folder list of docs/architecture.md: the first word of each line of its "folders" block. */
function documentedOrder(): string[] {
  const page = readFileSync(join(SRC, '..', 'docs', 'architecture.md'), 'utf8');
  const block = /## The folders, lowest first[\s\S]*?```text\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((word) => word.endsWith('/'));
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

  it('LAYERS names folders only, each once, and every folder that holds code', () => {
    expect(LAYERS.filter((entry) => !entry.endsWith('/'))).toEqual([]);
    expect(LAYERS.filter((entry, i) => LAYERS.indexOf(entry) !== i)).toEqual([]);
    const folders = codeFolders();
    expect(
      LAYERS.filter((entry) => !folders.includes(entry)),
      'no code there',
    ).toEqual([]);
    expect(
      folders.filter((folder) => !LAYERS.includes(folder)),
      'add these to LAYERS in test/unit/layers.test.ts',
    ).toEqual([]);
  });

  it('docs/architecture.md lists the same folders in the same order', () => {
    expect(documentedOrder()).toEqual(LAYERS);
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
    expect(layerOf('mock/model/state.ts')).toBeGreaterThan(
      layerOf('mock/model/markings/store.ts')!,
    );
    expect(layerOf('mock/server/server.ts')).toBeGreaterThan(
      layerOf('mock/persistence/durable.ts')!,
    );
    // Inside the mock: persistence below the models, each side's model below the state, the
    // state below the routes, the routes below the table and the server.
    expect(layerOf('mock/persistence/durable.ts')).toBeLessThan(
      layerOf('mock/model/device/store.ts')!,
    );
    expect(layerOf('mock/model/markings/indexed.ts')).toBeLessThan(layerOf('mock/model/state.ts')!);
    expect(layerOf('mock/model/state.ts')).toBeLessThan(layerOf('mock/request/auth.ts')!);
    expect(layerOf('mock/request/auth.ts')).toBeLessThan(
      layerOf('mock/routes/markings/routes.ts')!,
    );
    expect(layerOf('mock/routes/enrollment/admin-routes.ts')).toBeLessThan(
      layerOf('mock/routes/console/api.ts')!,
    );
    expect(layerOf('mock/routes/console/app.ts')).toBeLessThan(layerOf('mock/routes/table.ts')!);
    expect(layerOf('mock/routes/table.ts')).toBeLessThan(layerOf('mock/server/answers.ts')!);
    // A new file in a folder takes the folder's layer.
    expect(layerOf('mock/model/markings/new.ts')).toBe(layerOf('mock/model/markings/store.ts'));
  });
});
