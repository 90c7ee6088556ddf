import type { Auth } from '../../api/client.js';
import { checkService, type ServiceCheck } from '../../api/status.js';
import { namesTenant } from '../../api/errors.js';
import { UnreachableError } from '../../../common/errors.js';
import type { CommandContext } from '../kit/command-context.js';

function authText(auth: Auth): string {
  if (auth.kind === 'bearer') return 'bearer token';
  if (auth.kind === 'basic') return `basic (${auth.username})`;
  return 'none';
}

/**
 * Where a setting came from when the command line does not show it and it is not the context's:
 * " (from KSCTL_TOKEN)", as `gh auth status` names GH_TOKEN; also a flag's.
 */
function from(source: string | undefined): string {
  return source === undefined || source.startsWith('context ') || source === 'the current context'
    ? ''
    : ` (from ${source})`;
}

function serviceText(check: ServiceCheck): string {
  if (!check.answered) {
    const reason = check.problem instanceof UnreachableError ? check.problem.reason : 'no answer';
    return `not answering (${reason})`;
  }
  if (check.problem) return `answered ${check.problem.status ?? 'an error'} in ${check.ms} ms`;
  return `answering, ${check.ms} ms`;
}

async function activeProfile(ctx: CommandContext): Promise<{ text: string; data: unknown }> {
  try {
    const { resolvePersistor } = await import('../../config/persistor.js');
    const { listProfiles } = await import('../../profiles/index.js');
    const spec = await resolvePersistor(ctx, {});
    const active = (await listProfiles(spec)).find((p) => p.active);
    if (!active) return { text: `none in ${spec.path}`, data: null };
    return {
      text: `${active.name ?? active.deviceId} (${active.deviceId}) in ${spec.path}`,
      data: { name: active.name, deviceId: active.deviceId, path: spec.path },
    };
  } catch (error) {
    // The profile file is beside the point of a service check: say why it is unknown, go on.
    const reason = error instanceof Error ? error.message : String(error);
    return { text: `unknown (${reason})`, data: null };
  }
}

/** `ksctl status`: the connection in use and whether it works; exits with the problem's code. */
export async function status(ctx: CommandContext): Promise<void> {
  const store = await ctx.config();
  const conn = await ctx.connection();
  const client = await ctx.client(conn, { retries: 0 });
  const check = await checkService(
    client,
    conn.auth.kind === 'bearer' ? conn.auth.token : undefined,
  );
  const { problem } = check;
  const tenantless = !namesTenant(conn.baseUrl);
  const profile = await activeProfile(ctx);
  const context =
    conn.contextName === undefined
      ? 'none (flags and environment)'
      : `${conn.contextName}${conn.contextName === store.currentContext ? ' (current)' : ''}${from(conn.sources.context)}`;
  // A service that never answered reported nothing: say why, not that it declined to.
  const unreported = check.answered ? 'not reported by the service' : 'unknown (no answer)';
  const fields: [string, string][] = [
    ['Context', context],
    [
      'Base URL',
      conn.baseUrl + from(conn.sources.baseUrl) + (tenantless ? '  (no /v2/TENANT in it)' : ''),
    ],
    ['Credentials', authText(conn.auth) + from(conn.sources.auth)],
    [
      'Trusted CAs',
      conn.caFile === undefined
        ? "the system's"
        : `${conn.caFile.path} (from ${conn.caFile.source})`,
    ],
    ['Who', check.principal ?? unreported],
    ['Scopes', check.scopes === undefined ? unreported : check.scopes.join(' ') || 'none'],
    ['Read markings', check.canRead === undefined ? 'unknown' : check.canRead ? 'yes' : 'no'],
    ['Service', serviceText(check)],
    ['Active profile', profile.text],
  ];
  await ctx.render({
    kind: 'record',
    data: {
      context: conn.contextName ?? null,
      baseUrl: conn.baseUrl,
      auth: conn.auth.kind,
      caFile: conn.caFile?.path ?? null,
      sources: conn.sources,
      principal: check.principal ?? null,
      scopes: check.scopes ?? null,
      canRead: check.canRead ?? null,
      service: { answered: check.answered, ms: check.ms ?? null },
      profile: profile.data,
      ok: problem === undefined,
      problem: problem
        ? { code: problem.code, exitCode: problem.exitCode, message: problem.message }
        : null,
    },
    fields,
  });
  if (problem) throw problem;
}
