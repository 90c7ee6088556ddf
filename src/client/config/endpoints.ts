/**
 * Where an enrollment goes, as settings: the keyspace, the enrollment URL (key server public key,
 * portal), the API URL (register endpoint) and the key naming lookup URL. Each comes from flag >
 * environment > context; what is still missing is discovered by src/client/enroll/endpoints.ts.
 */
import type { ContextConfig } from './store.js';
import { UsageError } from '../../common/errors.js';

export type UrlSetting = 'apiUrl' | 'enrollmentUrl' | 'knsUrl';
export type SettingSource = 'flag' | 'environment' | 'context';

/** Each URL setting as the CLI (flag, variable) and the library (`enroll()`'s option) name it. */
export const URL_SETTINGS: Record<
  UrlSetting,
  { flag: string; env: string; option: UrlSetting; label: string }
> = {
  apiUrl: { flag: '--api-url', env: 'KSCTL_API_URL', option: 'apiUrl', label: 'API URL' },
  enrollmentUrl: {
    flag: '--enrollment-url',
    env: 'KSCTL_ENROLLMENT_URL',
    option: 'enrollmentUrl',
    label: 'enrollment URL',
  },
  knsUrl: {
    flag: '--kns-url',
    env: 'KSCTL_KNS_URL',
    option: 'knsUrl',
    label: 'key naming lookup URL',
  },
};

export type EndpointFlags = { keyspace?: string } & Partial<Record<UrlSetting, string>>;

export interface EndpointSettings extends EndpointFlags {
  /** Where each URL came from, so that an unreachable one is traced back to its setting. */
  sources: Partial<Record<UrlSetting, SettingSource>>;
}

/** Each setting: flag > KSCTL_* environment > context. Empty values count as unset. */
export function endpointSettings(
  flags: EndpointFlags,
  env: NodeJS.ProcessEnv,
  context: ContextConfig,
): EndpointSettings {
  const settings: EndpointSettings = {
    keyspace: flags.keyspace || env.KSCTL_KEYSPACE || context.keyspace || undefined,
    sources: {},
  };
  for (const setting of Object.keys(URL_SETTINGS) as UrlSetting[]) {
    const { flag, env: envName, label } = URL_SETTINGS[setting];
    const [url, source] = flags[setting]
      ? [flags[setting], 'flag' as const]
      : env[envName]
        ? [env[envName], 'environment' as const]
        : [context[setting] || undefined, 'context' as const];
    if (url === undefined) continue;
    if (!isHttpUrl(url))
      throw new UsageError(`the ${label} (${flag}) "${url}" is not an http(s) URL`);
    settings[setting] = url;
    settings.sources[setting] = source;
  }
  return settings;
}

/** No URL to enroll with: none configured, and none to look the others up from. */
export function unknownEndpointsError(keyspace: string | undefined): UsageError {
  return new UsageError(
    `cannot tell where to enroll${keyspace === undefined ? '' : ` into keyspace ${keyspace}`}`,
    {
      hint: {
        cli: 'pass --api-url and --enrollment-url, or --kns-url to look them up (or set them in the context)',
        code: 'pass apiUrl and enrollmentUrl, or knsUrl to look them up',
      },
    },
  );
}

/**
 * Whether an enrollment with these settings cannot find its endpoints, known before anything is
 * asked or sent: the enrollment URL and the API URL are configured or looked up (from --kns-url,
 * or the API URL's own lookup), and a portal sign-in (`portal`) names the API URL itself.
 */
export function endpointsUnknowable(settings: EndpointSettings, portal: boolean): boolean {
  const canLookUp = settings.knsUrl !== undefined || settings.apiUrl !== undefined;
  return !canLookUp && (settings.enrollmentUrl === undefined || !portal);
}

export function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
