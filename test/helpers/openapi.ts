/**
 * Checks the mock's answers against schema/openapi.yaml. The schemas are validated by
 * @hyperjump/json-schema (JSON Schema 2020-12 with the OpenAPI 3.1 dialect); this file only finds,
 * for an answer, which of the document's schemas applies: the path item (literal segments before
 * templated ones, as OpenAPI says), the operation, the response (exact status, then `4XX`, then
 * `default`), its media type and its headers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  registerSchema,
  setShouldValidateFormat,
  validate,
  type Validator,
} from '@hyperjump/json-schema/openapi-3-1';
import { BASIC } from '@hyperjump/json-schema/experimental';
import '@hyperjump/json-schema/formats-lite';
import YAML from 'yaml';
import type { AnswerSeen } from '../../src/mock/server/server.js';
import { PACKAGE_ROOT } from '../../src/common/package-root.js';

export const OPENAPI_YAML = join(PACKAGE_ROOT, 'schema', 'openapi.yaml');
/** Where the document is registered for the validator; no request ever goes there. */
const DOCUMENT_URI = 'https://ksctl.invalid/openapi.json';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = Record<string, unknown>;

interface PathItem {
  template: string;
  segments: string[];
  item: Json;
}

export interface OpenApi {
  document: Json;
  /** Every operation of the document, as method (upper case) and path template. */
  operations(): { method: string; template: string }[];
  /** The path template of the operation a request falls under, if the document has one. */
  operationOf(method: string, path: string): string | undefined;
  /** What is wrong with an answer; empty when it agrees with the document. */
  problems(answer: AnswerSeen): Promise<string[]>;
  /** The compiled validator of the schema at a JSON pointer of the document. */
  schemaAt(pointer: string): Promise<Validator>;
}

let loaded: OpenApi | undefined;

/** The document, parsed and registered once per test process. */
export function openApi(): OpenApi {
  loaded ??= load();
  return loaded;
}

/** A JSON pointer token, escaped as RFC 6901 says and percent-encoded for a URI fragment. */
export function pointerToken(token: string): string {
  return encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'));
}

function load(): OpenApi {
  const document = YAML.parse(readFileSync(OPENAPI_YAML, 'utf8')) as Json;
  registerSchema(
    document as Parameters<typeof registerSchema>[0],
    DOCUMENT_URI,
    'https://spec.openapis.org/oas/3.1/schema-base',
  );
  // `format` asserts here (date-time, uri, email): a malformed time in an answer is a failure.
  setShouldValidateFormat(true);
  const paths = Object.entries(document.paths as Record<string, Json>).map(
    ([template, item]): PathItem => ({
      template,
      segments: template.split('/').filter(Boolean),
      item,
    }),
  );
  const validators = new Map<string, Promise<Validator>>();
  const schemaAt = (pointer: string) => {
    let compiled = validators.get(pointer);
    if (!compiled) {
      compiled = validate(`${DOCUMENT_URI}#${pointer}`);
      validators.set(pointer, compiled);
    }
    return compiled;
  };

  /** Follows `$ref`s between components (responses, headers); returns the object and its pointer. */
  function resolve(value: Json, pointer: string): { value: Json; pointer: string } {
    let current = { value, pointer };
    for (let hops = 0; typeof current.value.$ref === 'string'; hops++) {
      const ref = current.value.$ref;
      if (hops > 8 || !ref.startsWith('#/')) throw new Error(`cannot follow $ref ${ref}`);
      let target: unknown = document;
      for (const token of ref.slice(2).split('/')) {
        const key = decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');
        target = (target as Json | undefined)?.[key];
      }
      if (typeof target !== 'object' || target === null) throw new Error(`no ${ref}`);
      current = { value: target as Json, pointer: ref.slice(1) };
    }
    return current;
  }

  function pathItemFor(path: string): PathItem | undefined {
    const parts = path.split('/').filter(Boolean);
    let best: { item: PathItem; literals: number } | undefined;
    for (const candidate of paths) {
      if (candidate.segments.length !== parts.length) continue;
      let literals = 0;
      const fits = candidate.segments.every((segment, i) => {
        if (/^\{[^}]+\}$/.test(segment)) return true;
        literals++;
        return segment === parts[i];
      });
      if (fits && (!best || literals > best.literals)) best = { item: candidate, literals };
    }
    return best?.item;
  }

  async function check(schemaPointer: string, value: unknown, what: string): Promise<string[]> {
    const validator = await schemaAt(schemaPointer);
    const instance = value as Parameters<Validator>[0];
    // The flag alone is quick; the errors are gathered only for an answer that fails.
    if (validator(instance).valid) return [];
    const output = validator(instance, BASIC);
    if (output.valid) return [];
    const errors = output.errors ?? [];
    // The innermost failures say most; the applicators above them only repeat them.
    const shown = errors
      .filter((e) => !e.absoluteKeywordLocation.endsWith('/$ref'))
      .slice(-5)
      .map(
        (e) => `${e.instanceLocation} fails ${e.absoluteKeywordLocation.replace(DOCUMENT_URI, '')}`,
      );
    return [`${what} does not match ${schemaPointer}: ${shown.join('; ') || 'invalid'}`];
  }

  async function bodyProblems(answer: AnswerSeen, response: Json, at: string): Promise<string[]> {
    const content = response.content as Record<string, Json> | undefined;
    const hasBody = answer.body !== undefined && answer.body !== '';
    if (!content)
      return hasBody ? [`the document gives no body for ${at}, the answer has one`] : [];
    if (!hasBody) return [`the answer has no body, the document gives one for ${at}`];
    const type = (answer.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const media = content[type];
    if (!media) {
      return [
        `content type ${type || '(none)'} is not one of ${Object.keys(content).join(', ')} (${at})`,
      ];
    }
    if (!media.schema) return [];
    const pointer = `${at}/content/${pointerToken(type)}/schema`;
    let value: unknown = answer.body;
    if (type === 'application/json' || type.endsWith('+json')) {
      try {
        value = JSON.parse(answer.body!);
      } catch {
        return [`the body is not JSON (${at})`];
      }
    }
    return check(pointer, value, 'the body');
  }

  async function headerProblems(answer: AnswerSeen, response: Json, at: string): Promise<string[]> {
    const problems: string[] = [];
    const headers = (response.headers ?? {}) as Record<string, Json>;
    for (const [name, declared] of Object.entries(headers)) {
      const { value: header, pointer } = resolve(declared, `${at}/headers/${pointerToken(name)}`);
      const sent = answer.headers[name.toLowerCase()];
      if (sent === undefined) {
        if (header.required === true) problems.push(`header ${name} is missing (${at})`);
        continue;
      }
      if (header.schema)
        problems.push(...(await check(`${pointer}/schema`, sent, `header ${name}`)));
    }
    return problems;
  }

  async function problems(answer: AnswerSeen): Promise<string[]> {
    // The console's pages and their own API are not the service's interface (src/mock/routes/console/).
    if (answer.path === '/_mock/console' || answer.path.startsWith('/_mock/console/')) return [];
    // A CORS preflight, answered on every path and outside the document (its description says so).
    if (
      answer.method === 'OPTIONS' &&
      answer.headers['access-control-allow-methods'] !== undefined
    ) {
      const fine =
        answer.status === 204 && !answer.body && answer.headers['access-control-allow-origin'];
      return fine ? [] : [`OPTIONS ${answer.path} → ${answer.status}: not a CORS preflight answer`];
    }
    const pathItem = pathItemFor(answer.path);
    const method = answer.method.toLowerCase();
    const operation = pathItem?.item[method] as Json | undefined;
    if (!pathItem || !operation) {
      // Not an operation of the document: only an error answer can be right (404, 405, a fault).
      const error = `/components/responses/NotServed`;
      if (answer.status < 400) {
        return [
          `${answer.method} ${answer.path} is no operation of the document but answered ${answer.status}`,
        ];
      }
      const response = resolve({ $ref: `#${error}` }, error).value;
      const found = [
        ...(await headerProblems(answer, response, error)),
        ...(await bodyProblems(answer, response, error)),
      ];
      return found.map((p) => `${answer.method} ${answer.path} → ${answer.status}: ${p}`);
    }
    const responses = operation.responses as Record<string, Json>;
    const status = String(answer.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
    if (key === undefined) {
      return [`${answer.method} ${pathItem.template} documents no answer ${status}`];
    }
    const at = `/paths/${pointerToken(pathItem.template)}/${method}/responses/${key}`;
    const { value: response, pointer } = resolve(responses[key]!, at);
    const found = [
      ...(await headerProblems(answer, response, pointer)),
      ...(await bodyProblems(answer, response, pointer)),
    ];
    return found.map((p) => `${answer.method} ${answer.path} → ${status}: ${p}`);
  }

  function operations() {
    return paths.flatMap(({ template, item }) =>
      HTTP_METHODS.filter((m) => item[m] !== undefined).map((m) => ({
        method: m.toUpperCase(),
        template,
      })),
    );
  }

  function operationOf(method: string, path: string): string | undefined {
    const pathItem = pathItemFor(path);
    return pathItem?.item[method.toLowerCase()] === undefined ? undefined : pathItem.template;
  }

  return { document, operations, operationOf, problems, schemaAt };
}

/**
 * Characters of a body above which its check waits for verify(). Parsing and validating a body of
 * tens of megabytes takes seconds on the thread the in-process mock answers on: a client whose
 * request waited that long on a keep-alive connection found it closed under it (ECONNRESET), the
 * mock's keep-alive timer having fired before the mock could read the request.
 */
const CHECKED_LATER_CHARS = 1024 * 1024;

/**
 * Collects what is wrong with the answers a mock gives: `observe` is its onAnswer, `verify()`
 * waits for the checks and throws listing the problems (the first few of them). An answer is
 * checked as it is seen, a large one (CHECKED_LATER_CHARS) when verify() is called.
 */
export function answerChecker(): {
  observe: (answer: AnswerSeen) => void;
  verify: () => Promise<void>;
  /** How many answers were checked. */
  readonly checked: number;
} {
  const api = openApi();
  const pending: Promise<string[]>[] = [];
  const later: AnswerSeen[] = [];
  let checked = 0;
  const check = (answer: AnswerSeen): void => {
    pending.push(api.problems(answer).catch((error: unknown) => [String(error)]));
  };
  return {
    observe(answer) {
      checked++;
      if ((answer.body?.length ?? 0) > CHECKED_LATER_CHARS) later.push(answer);
      else check(answer);
    },
    async verify() {
      for (const answer of later.splice(0)) check(answer);
      const found = (await Promise.all(pending.splice(0))).flat();
      if (found.length > 0) {
        const shown = [...new Set(found)].slice(0, 10);
        throw new Error(
          `${found.length} answer(s) of the mock disagree with schema/openapi.yaml:\n${shown.join('\n')}`,
        );
      }
    },
    get checked() {
      return checked;
    },
  };
}
