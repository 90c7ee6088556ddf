import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import { type Route, route } from '../../request/route.js';
import { faultRuleProblem } from '../../model/admin/faults.js';
import { json, MockHttpError } from '../../kit/http.js';
import { describeRequestAt, hostOf } from '../../request-detail/request-detail.js';
import type { ServedAt } from '../../request-detail/replay.js';
import { filterFromQuery } from '../../journal/filter.js';
import { journalPageAnswer } from '../../journal/page.js';
import { Pacer } from '../../kit/pacing.js';
import type { MockState } from '../../model/state.js';

/** `/_mock/*`: health (open), and reset, faults and the request journal (dev token). */
export function adminRoutes(state: MockState, reset: () => void, info: () => ServedAt): Route[] {
  return [
    route('GET', '/_mock/health', 'anyone', () => json(200, { status: 'ok' })),
    route('POST', '/_mock/reset', 'admin', () => {
      reset();
      return json(200, { status: 'reset' });
    }),
    route('GET', '/_mock/faults', 'admin', () => {
      return json(200, state.faults.list());
    }),
    route('PUT', '/_mock/faults', 'admin', async (req) => {
      const rules = await req.json();
      if (!Array.isArray(rules)) {
        throw new MockHttpError(
          400,
          MarkingsErrorCode.validation,
          'fault rules must be a JSON array',
        );
      }
      const details = rules.flatMap((rule, i) => {
        const problem = faultRuleProblem(rule);
        return problem ? [{ path: `[${i}]`, message: problem }] : [];
      });
      if (details.length > 0) {
        throw new MockHttpError(
          400,
          MarkingsErrorCode.validation,
          `invalid fault rule: ${details[0]!.path}: ${details[0]!.message}`,
          details,
        );
      }
      state.faults.replace(rules);
      return json(200, state.faults.list());
    }),
    route('GET', '/_mock/requests', 'admin', async (req) => {
      const filter = filterFromQuery(req.query);
      if (typeof filter === 'string') {
        throw new MockHttpError(400, MarkingsErrorCode.validation, filter);
      }
      // A page at a time (megabytes at most), its text made in slices, with a link to the next.
      const { chunks, headers } = await journalPageAnswer(
        state.journal,
        req.query,
        filter,
        new Pacer(),
      );
      return { status: 200, bytes: chunks, headers };
    }),
    route('GET', '/_mock/requests/:id', 'admin', async (req) => {
      return json(200, await describeRequestAt(state, req.params.id!, info(), hostOf(req)));
    }),
  ];
}
