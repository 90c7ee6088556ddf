/**
 * `GET /_mock/openapi.json`: the OpenAPI document of everything the mock serves
 * (schema/openapi.yaml, turned into JSON at build time by scripts/openapi.js), with `servers`
 * naming this mock. Read from disk on the first request only: nothing else in ksctl loads it.
 */
import type { MockInfo } from '../../../common/mock/wire.js';
import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import { MockHttpError } from '../../kit/http.js';
import { type Route, route } from '../../request/route.js';
import { packageFile } from '../../../common/package-root.js';

export const OPENAPI_PATH = '/_mock/openapi.json';

/** Where the build puts the JSON form of schema/openapi.yaml, in the package. */
const OPENAPI_FILE = 'dist/openapi.json';

export function openApiRoute(info: () => MockInfo): Route {
  let document: Promise<string> | undefined;
  return route('GET', OPENAPI_PATH, 'anyone', async () => {
    document ??= served(info().url);
    try {
      return { status: 200, text: await document, headers: { 'content-type': 'application/json' } };
    } catch {
      // A later request tries again (the build may have been run meanwhile).
      document = undefined;
      throw new MockHttpError(
        500,
        MarkingsErrorCode.internal,
        'this installation of ksctl has no dist/openapi.json: run npm run build',
      );
    }
  });
}

async function served(url: string): Promise<string> {
  const parsed = JSON.parse((await packageFile(OPENAPI_FILE)).toString('utf8')) as Record<
    string,
    unknown
  >;
  return JSON.stringify({ ...parsed, servers: [{ url, description: 'this mock' }] });
}
