/**
 * The recorder's own endpoints (recorder.ts): `/_mock/health` (open), `/_mock/requests` and
 * `/_mock/requests/{id}` over its journal (dev token), as the mock's answer them; and the mock's
 * console over the same journal, loaded when a browser first asks for it.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { MarkingsErrorCode } from '../../common/markings/wire.js';
import type { RequestDetail } from '../../common/mock/wire.js';
import { MockHttpError } from '../kit/http.js';
import { Pacer } from '../kit/pacing.js';
import { filterFromQuery } from '../journal/filter.js';
import { journalPageAnswer } from '../journal/page.js';
import { type Journal, JOURNAL_MAX_ENTRIES } from '../journal/request-journal.js';
import { type DeviceKeyring, openDeviceRequest } from '../request-detail/device.js';
import { replayLines } from '../request-detail/replay.js';
import { scrubbedDetail } from '../request-detail/request-detail.js';
import {
  BodyReader,
  conversationId,
  errorAnswer,
  mockRequest,
  requestTarget,
} from '../request/request.js';
import type { ConsoleApp } from '../routes/console/app.js';
import { type ConsoleSignIn, sameSecret } from '../model/console/sign-in.js';
import { consoleSession } from '../request/auth.js';
import { type Gate, type RouteFamily, RouteTable } from '../request/route.js';
import { consoleFamilies, SECURITY_HEADERS } from '../routes/console/family.js';
import { bodyBytes, sendAnswer } from './answers.js';

/** What the recorder's endpoints need of it. */
export interface RecorderEndpointsDeps {
  journal: Journal;
  /** The origin recorded. */
  target: string;
  /** The tenant whose markings paths the journal's `ksctl` lines write under the base URL. */
  tenant: string;
  devToken: string;
  keyring?: DeviceKeyring;
  /** Set while the console is on. */
  signIn: ConsoleSignIn | undefined;
  /** The recorder's URL. */
  url: () => string;
  /** The recorder is closing: each answer is the last on its connection. */
  closing: () => boolean;
}

export function errorBody(cid: string, code: number, message: string): string {
  return JSON.stringify({ error: { cid, code, message } });
}

export class RecorderEndpoints {
  /** The console itself, loaded when a browser first asks for it. */
  private consoleApp: Promise<ConsoleApp> | undefined;

  /** The console's families over this journal, the recorder's dev token for sign-in links. */
  private readonly consoleTable: RouteTable;

  constructor(private readonly deps: RecorderEndpointsDeps) {
    const served = () => {
      throw new Error('a recorder serves no route that needs a principal');
    };
    const gate: Gate = {
      caller: served,
      authorize: served,
      admin: (req) => {
        const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (given === undefined || !sameSecret(given, deps.devToken)) {
          throw new MockHttpError(
            401,
            MarkingsErrorCode.unauthorized,
            "a sign-in link of the recorder's console needs its dev token",
          );
        }
      },
      session: (req) => consoleSession(deps.signIn, req),
    };
    // A console path can name another once resolved (`/_mock/console/assets/../../x`): not found.
    const elsewhere: RouteFamily = {
      prefix: '',
      headers: SECURITY_HEADERS,
      routes: () => [],
      unmatched: (req) => {
        throw new MockHttpError(404, MarkingsErrorCode.notFound, `no such resource: ${req.path}`);
      },
    };
    this.consoleTable = new RouteTable(
      gate,
      [...consoleFamilies(() => this.app(), false), elsewhere],
      (req, e) => errorAnswer(req.cid, e, req.path),
    );
  }

  /** The console, loaded the first time a browser asks for it. */
  private app(): Promise<ConsoleApp> {
    this.consoleApp ??= import('../routes/console/app.js').then(
      ({ ConsoleApp }) =>
        new ConsoleApp({
          signIn: this.deps.signIn!,
          devToken: this.deps.devToken,
          url: this.deps.url,
          journal: this.deps.journal,
          feed: (listener) => this.deps.journal.subscribe(listener),
          describe: async (id) => {
            const detail = await this.describe(id);
            if (detail !== undefined) return detail;
            throw new MockHttpError(404, MarkingsErrorCode.notFound, noRequest(id));
          },
          recording: this.deps.target,
        }),
    );
    return this.consoleApp;
  }

  /** Ends the console's event streams. */
  async close(): Promise<void> {
    if (this.consoleApp) (await this.consoleApp).close();
  }

  /** `/_mock/health` (open), `/_mock/requests` and `/_mock/requests/{id}` (dev token). */
  async admin(req: IncomingMessage, res: ServerResponse, target: string): Promise<void> {
    const url = new URL(target, 'http://recorder');
    const cid = header(req.headers, 'x-conversation-id') ?? '';
    const send = (status: number, body: unknown) => {
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (url.pathname === '/_mock/health') {
      send(200, { status: 'ok', recording: this.deps.target });
      return;
    }
    const known =
      url.pathname === '/_mock/requests' || /^\/_mock\/requests\/[^/]+$/.test(url.pathname);
    if (!known) {
      send(
        404,
        errorBody(
          cid,
          MarkingsErrorCode.notFound,
          'ksctl mock record serves only /_mock/health, /_mock/requests and /_mock/console/',
        ),
      );
      return;
    }
    if (req.method !== 'GET') {
      res.setHeader('allow', 'GET');
      send(
        405,
        errorBody(cid, MarkingsErrorCode.methodNotAllowed, `${req.method} is not allowed here`),
      );
      return;
    }
    if (header(req.headers, 'authorization') !== `Bearer ${this.deps.devToken}`) {
      send(
        401,
        errorBody(
          cid,
          MarkingsErrorCode.unauthorized,
          "the recorder's journal needs its dev token",
        ),
      );
      return;
    }
    if (url.pathname === '/_mock/requests') {
      const filter = filterFromQuery(url.searchParams);
      if (typeof filter === 'string') {
        send(400, errorBody(cid, MarkingsErrorCode.validation, filter));
        return;
      }
      // Paged as the mock pages it, with the same links.
      const { chunks, headers } = await journalPageAnswer(
        this.deps.journal,
        url.searchParams,
        filter,
        new Pacer(),
      );
      res.writeHead(200, headers);
      for (const chunk of chunks) res.write(chunk);
      res.end();
      return;
    }
    const id = url.pathname.slice('/_mock/requests/'.length);
    const detail = await this.describe(id);
    if (detail === undefined) {
      send(404, errorBody(cid, MarkingsErrorCode.notFound, noRequest(id)));
      return;
    }
    send(200, JSON.stringify(detail));
  }

  /**
   * A journal entry described as `/_mock/requests/{id}` describes it, a device request opened
   * with `--profiles`; whatever was opened, neither token is in it. Undefined when none.
   */
  private async describe(id: string): Promise<RequestDetail | undefined> {
    const entry = /^\d{1,15}$/.test(id) ? this.deps.journal.get(Number(id)) : undefined;
    if (entry === undefined) return undefined;
    const detail: RequestDetail = {
      ...entry,
      ...replayLines(this.deps.tenant, entry, {}),
    };
    const raw = this.deps.journal.sealed(entry.id);
    const { keyring } = this.deps;
    if (keyring !== undefined && raw !== undefined && entry.side === 'device') {
      // Devices the app enrolled since the start are in the file now.
      await keyring.refresh?.();
      const problems: string[] = [];
      const opened = openDeviceRequest(keyring, entry, raw, problems);
      if (opened) detail.opened = opened;
      if (problems.length > 0) detail.problems = problems;
    }
    return scrubbedDetail(this.deps.journal.secrets, detail);
  }

  /** A request under /_mock/console, answered by the mock's console over this journal. */
  async console(req: IncomingMessage, res: ServerResponse, target: string): Promise<void> {
    const cid = conversationId(req);
    const parsed = requestTarget(target);
    let answer;
    try {
      if (parsed === undefined) {
        throw new MockHttpError(
          400,
          MarkingsErrorCode.badRequest,
          'the request target is not a path',
        );
      }
      const body = new BodyReader(req);
      answer = await this.consoleTable.answer(
        mockRequest(req, req.method ?? 'GET', parsed, cid, body),
      );
    } catch (error) {
      answer = errorAnswer(cid, error, parsed?.pathname ?? '');
    }
    const bytes = await bodyBytes(answer).catch(() => undefined);
    sendAnswer(res, cid, answer, bytes, this.deps.closing());
  }
}

function noRequest(id: string): string {
  return `the journal holds no request ${id.slice(0, 50)} (it keeps the newest ${JOURNAL_MAX_ENTRIES.toLocaleString('en')})`;
}
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
