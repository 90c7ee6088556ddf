/**
 * Where an enrollment goes: the keyspace, the enrollment URL (key server public key, portal) and
 * the API URL (register endpoint). Each comes from flag > environment > context; what is still
 * missing is discovered through the key naming lookup (DESIGN.md 2.1), whose URL defaults to
 * the API URL. A portal sign-in may also name the API URL.
 */
import type { ApiClient } from '../api/client.js';
import type { KnsAnswer } from '../api/wire.js';
import type { ContextConfig } from '../config/store.js';
import { ServiceError, UsageError } from '../errors.js';
import { isJsonObject } from './json.js';

export interface EndpointSettings {
  keyspace?: string;
  apiUrl?: string;
  enrollmentUrl?: string;
  knsUrl?: string;
}

/** Each setting: flag > KSCTL_* environment > context. Empty values count as unset. */
export function endpointSettings(
  flags: EndpointSettings,
  env: NodeJS.ProcessEnv,
  context: ContextConfig,
): EndpointSettings {
  const pick = (flag: string | undefined, envName: string, fromContext: string | undefined) =>
    flag || env[envName] || fromContext || undefined;
  const settings = {
    keyspace: pick(flags.keyspace, 'KSCTL_KEYSPACE', context.keyspace),
    apiUrl: pick(flags.apiUrl, 'KSCTL_API_URL', context.apiUrl),
    enrollmentUrl: pick(flags.enrollmentUrl, 'KSCTL_ENROLLMENT_URL', context.enrollmentUrl),
    knsUrl: pick(flags.knsUrl, 'KSCTL_KNS_URL', context.knsUrl),
  };
  for (const [name, url] of [
    ['API URL (--api-url)', settings.apiUrl],
    ['enrollment URL (--enrollment-url)', settings.enrollmentUrl],
    ['key naming lookup URL (--kns-url)', settings.knsUrl],
  ] as const) {
    if (url !== undefined) checkHttpUrl(url, name);
  }
  return settings;
}

function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function checkHttpUrl(url: string, name: string): void {
  if (!isHttpUrl(url)) throw new UsageError(`the ${name} "${url}" is not an http(s) URL`);
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

interface Discovered {
  apiUrl: string;
  enrollmentUrl: string;
}

/** Resolves the URLs of one keyspace, looking them up at most once. */
export class EnrollmentEndpoints {
  private discovered: Promise<Discovered> | undefined;

  constructor(
    private readonly http: ApiClient,
    readonly keyspace: string,
    private readonly settings: EndpointSettings,
    private readonly signal?: AbortSignal,
  ) {}

  async enrollmentUrl(): Promise<string> {
    return trimSlash(this.settings.enrollmentUrl ?? (await this.discover()).enrollmentUrl);
  }

  /** The configured API URL, else the one a portal sign-in named, else the looked-up one. */
  async apiUrl(fromPortal?: string): Promise<string> {
    return trimSlash(this.settings.apiUrl ?? fromPortal ?? (await this.discover()).apiUrl);
  }

  private discover(): Promise<Discovered> {
    this.discovered ??= this.lookUp();
    return this.discovered;
  }

  private async lookUp(): Promise<Discovered> {
    const knsUrl = this.settings.knsUrl ?? this.settings.apiUrl;
    if (knsUrl === undefined) {
      throw new UsageError(`cannot tell where to enroll into keyspace ${this.keyspace}`, {
        hint: 'pass --api-url and --enrollment-url, or --kns-url to look them up (or set them in the context)',
      });
    }
    const url = `${trimSlash(knsUrl)}/v2.4/kns/keyspaces/${encodeURIComponent(this.keyspace)}`;
    const answer = await this.http.request<unknown>('GET', url, {
      what: `key naming lookup of keyspace ${this.keyspace}`,
      signal: this.signal,
    });
    return readKnsAnswer(answer.body, this.keyspace, answer.conversationId);
  }
}

/** The API URL and enrollment URL of a key naming answer. */
export function readKnsAnswer(
  body: unknown,
  keyspace: string,
  conversationId?: string,
): Discovered {
  const malformed = (what: string) =>
    new ServiceError(`The key naming lookup for keyspace ${keyspace} answered oddly: ${what}`, {
      hint: 'check --kns-url, or pass --api-url and --enrollment-url yourself',
      conversationId,
    });
  const answers = isJsonObject(body) && isJsonObject(body.answers) ? body.answers : undefined;
  if (answers === undefined) throw malformed('no answers');
  const first = (list: unknown) =>
    Array.isArray(list) && typeof list[0] === 'string' ? list[0] : undefined;
  const apiUrl = first((answers as Partial<KnsAnswer['answers']>).url);
  const enroll = first((answers as Partial<KnsAnswer['answers']>).enroll);
  if (apiUrl === undefined) throw malformed('no API URL (answers.url)');
  if (enroll === undefined) throw malformed('no enrollment URL (answers.enroll)');
  // answers.enroll names the portal, {enrollment_url}/keyspace/{ks}/register.
  const suffix = /\/keyspace\/[^/]+\/register\/?$/;
  if (!isHttpUrl(apiUrl)) throw malformed(`answers.url "${apiUrl}" is not an http(s) URL`);
  if (!isHttpUrl(enroll) || !suffix.test(enroll)) {
    throw malformed(`answers.enroll "${enroll}" is not a portal URL`);
  }
  return { apiUrl: trimSlash(apiUrl), enrollmentUrl: enroll.replace(suffix, '') };
}
