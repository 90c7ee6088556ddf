/**
 * The error answer of every service, markings and enrollment alike (docs/design.md 1.4): what
 * the client reads and the mock writes.
 */

export interface ErrorDetailWire {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: {
    cid: string;
    code: number;
    message: string;
    details?: ErrorDetailWire[];
  };
}

/** The public Ionic management-API error shape, which a real service may answer with. */
export interface IonicManagementErrorBody {
  status?: number;
  code?: number;
  error?: string;
  detail?: { message?: string };
  source?: { cid?: string };
}
