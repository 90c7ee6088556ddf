/**
 * Where an enrollment goes: the URLs its settings give (src/client/config/endpoints.ts), and what is
 * still missing discovered through the key naming lookup (docs/design.md 2.1), whose URL defaults
 * to the API URL. A portal sign-in may also name the API URL.
 */
import type { ApiClient } from '../api/client.js';
import type { KnsAnswer } from '../../common/enrollment/wire.js';
import {
  type EndpointSettings,
  isHttpUrl,
  unknownEndpointsError,
  URL_SETTINGS,
  type UrlSetting,
} from '../config/endpoints.js';
import { type Hint, mapHint, ServiceError, UnreachableError } from '../../common/errors.js';
import { isJsonObject } from '../../common/encoding/json.js';

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** A URL in use, and what a user who cannot reach it should check. */
export interface Endpoint {
  url: string;
  /** What the URL is ("enrollment URL"). */
  label: string;
  /** Where the URL came from, as something to check ("check --enrollment-url"). */
  advice: Hint;
}

/** Runs a request to `endpoint`; when the service cannot be reached, the error says where. */
export async function reach<T>(endpoint: Endpoint, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    // The client's own message names its base URL and hints at --base-url: neither fits
    // enrollment, whose URLs come from other settings.
    if (!(error instanceof UnreachableError)) throw error;
    throw new UnreachableError(
      error.what,
      error.reason,
      `${error.what}: cannot reach the ${endpoint.label} ${endpoint.url}: ${error.reason}`,
      {
        hint: mapHint(endpoint.advice, (advice) => `${advice} and that the service is running`),
        conversationId: error.conversationId,
        cause: error.cause,
      },
    );
  }
}

interface Discovered {
  apiUrl: string;
  enrollmentUrl: string;
}

/** Resolves the URLs of one keyspace, looking them up at most once. */
export class EnrollmentEndpoints {
  private discovered: Promise<{ lookup: Endpoint; found: Discovered }> | undefined;

  constructor(
    private readonly http: ApiClient,
    readonly keyspace: string,
    private readonly settings: EndpointSettings,
    private readonly signal?: AbortSignal,
  ) {}

  async enrollment(): Promise<Endpoint> {
    return this.configured('enrollmentUrl') ?? this.lookedUp('enrollmentUrl');
  }

  /** The configured API URL, else the one a portal sign-in named, else the looked-up one. */
  async api(fromPortal?: string): Promise<Endpoint> {
    const configured = this.configured('apiUrl');
    if (configured !== undefined) return configured;
    if (fromPortal !== undefined) {
      return {
        url: trimSlash(fromPortal),
        label: URL_SETTINGS.apiUrl.label,
        advice: {
          cli: 'check the API URL the enrollment portal named (or pass --api-url)',
          code: 'check the API URL the enrollment portal named (or pass apiUrl)',
        },
      };
    }
    return this.lookedUp('apiUrl');
  }

  private configured(setting: UrlSetting): Endpoint | undefined {
    const url = this.settings[setting];
    if (url === undefined) return undefined;
    const { flag, env, option, label } = URL_SETTINGS[setting];
    const cli = {
      flag: `check ${flag}`,
      environment: `check ${env} (or pass ${flag})`,
      context: `check the ${label} of the context (or pass ${flag})`,
    }[this.settings.sources[setting] ?? 'flag'];
    return { url: trimSlash(url), label, advice: { cli, code: `check ${option}` } };
  }

  private async lookedUp(setting: keyof Discovered): Promise<Endpoint> {
    this.discovered ??= this.lookUp();
    const { lookup, found } = await this.discovered;
    const { flag, option, label } = URL_SETTINGS[setting];
    const advice = (pass: string) =>
      `check the key naming lookup at ${lookup.url}, which named this URL (or pass ${pass})`;
    return { url: found[setting], label, advice: { cli: advice(flag), code: advice(option) } };
  }

  private async lookUp(): Promise<{ lookup: Endpoint; found: Discovered }> {
    const lookup = this.configured('knsUrl') ?? this.configured('apiUrl');
    if (lookup === undefined) {
      throw unknownEndpointsError(this.keyspace);
    }
    const url = `${lookup.url}/v2.4/kns/keyspaces/${encodeURIComponent(this.keyspace)}`;
    const answer = await reach(lookup, () =>
      this.http.request<unknown>('GET', url, {
        what: `key naming lookup of keyspace ${this.keyspace}`,
        expect: (body) => (isJsonObject(body) ? undefined : 'not a JSON object'),
        signal: this.signal,
      }),
    );
    return { lookup, found: readKnsAnswer(answer.body, this.keyspace, answer.conversationId) };
  }
}

/** The API URL and enrollment URL of a key naming answer. */
export function readKnsAnswer(
  body: unknown,
  keyspace: string,
  conversationId?: string,
): Discovered {
  const malformed = (what: string) =>
    new ServiceError(`the key naming lookup for keyspace ${keyspace} answered oddly: ${what}`, {
      hint: {
        cli: 'check --kns-url, or pass --api-url and --enrollment-url yourself',
        code: 'check knsUrl, or pass apiUrl and enrollmentUrl yourself',
      },
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
