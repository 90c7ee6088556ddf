// The two pieces of undici that ksctl uses, imported from their own files (see transport.ts).
// Their types are the public ones of the same classes and functions.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** Dispatcher.prototype.request, called with the dispatcher as `this`. */
  function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
  export default request;
}
