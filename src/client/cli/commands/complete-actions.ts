import type { NameKind } from '../kit/completion-tree.js';
import type { CommandContext } from '../kit/command-context.js';

/** A Tab press waits for this long at most. */
const COMPLETE_TIMEOUT_S = 2;
/** More names than a terminal shows usefully. */
const MAX_NAMES = 500;

async function names(
  ctx: CommandContext,
  kind: NameKind,
  prefix: string,
  marking: string | undefined,
): Promise<string[]> {
  switch (kind) {
    case 'context':
      return (await ctx.config()).names();
    case 'profile': {
      const { resolvePersistor } = await import('../../config/persistor.js');
      const { listProfiles } = await import('../../profiles/index.js');
      return (await listProfiles(await resolvePersistor(ctx, {}))).map((p) => p.name ?? p.deviceId);
    }
    case 'marking': {
      const api = await ctx.markings();
      const query = { name__startswith: prefix === '' ? undefined : prefix, valueLimit: 0 };
      const found: string[] = [];
      for await (const m of api.listMarkings(query, MAX_NAMES + 1)) found.push(m.name);
      return found;
    }
    case 'value': {
      if (marking === undefined) return [];
      const api = await ctx.markings();
      const { id } = await api.resolveMarking(marking, 0);
      const found: string[] = [];
      for await (const v of api.listValues(id, {}, MAX_NAMES + 1)) found.push(v.name);
      return found;
    }
  }
}

export async function complete(
  ctx: CommandContext,
  kind: NameKind,
  prefix: string,
  marking: string | undefined,
): Promise<void> {
  ctx.globals = { ...ctx.globals, input: false, debug: false, timeout: COMPLETE_TIMEOUT_S };
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), COMPLETE_TIMEOUT_S * 1000);
  });
  try {
    const found = await Promise.race([names(ctx, kind, prefix, marking), giveUp]);
    const matching = [...new Set(found)].filter((n) => n.startsWith(prefix)).sort();
    const shown = matching.slice(0, MAX_NAMES);
    // Beyond the cap the shells get a hint, a line of its own that begins with a tab.
    if (matching.length > MAX_NAMES) {
      shown.push(`\tfirst ${MAX_NAMES} names only: type more of the name`);
    }
    if (shown.length > 0) ctx.io.stdout.write(`${shown.join('\n')}\n`);
  } catch {
    // Completion stays silent: an error here would land in the middle of the command line.
  } finally {
    clearTimeout(timer);
  }
}
