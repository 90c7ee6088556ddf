import type { KnsAnswer } from '../../../common/enrollment/wire.js';
import { type Route, route } from '../../request/route.js';
import type { MockInfo } from '../../../common/mock/wire.js';
import { CauseCode } from '../../../common/enrollment/causes.js';
import { causeError } from '../../model/enrollment/errors.js';
import { json } from '../../kit/http.js';
import type { MockState } from '../../model/state.js';

/** How long a client may cache a lookup answer. */
const KNS_TTL_SECONDS = 3600;

/**
 * Key naming lookup (docs/design.md 2.1): from a keyspace alone, where to enroll and which API to
 * use. Offline or enrollment-disabled keyspaces are still named; registration says why it fails.
 */
export function knsRoute(state: MockState, info: () => MockInfo): Route {
  return route('GET', '/v2.4/kns/keyspaces/:keyspace', 'anyone', (req) => {
    const keyspace = state.keyspaces.get(req.params.keyspace!);
    if (!keyspace) throw causeError(CauseCode.keyspaceNotFound);
    const { apiUrl, enrollmentUrl } = info();
    const answer: KnsAnswer = {
      keyspace: keyspace.id,
      fqdn: new URL(apiUrl).hostname,
      ttlSeconds: KNS_TTL_SECONDS,
      answers: {
        enroll: [`${enrollmentUrl}/keyspace/${keyspace.id}/register`],
        tenantid: [keyspace.tenant],
        url: [apiUrl],
      },
    };
    return json(200, answer);
  });
}
