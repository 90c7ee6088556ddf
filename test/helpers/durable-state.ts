/**
 * A mock state on a state directory, as `mock serve --state` opens it: the durable files read
 * (or made, with a "dev" tenant) and the model attached to them.
 */
import { DurableState } from '../../src/mock/model/durable-state.js';
import { MockState } from '../../src/mock/model/state.js';

/** `devToken`: the new state's dev token; `warnings`: what start-up forgave, as it said it. */
export async function openDurableState(
  dir: string,
  devToken: string,
  options: { compactAfterBytes?: number } = {},
) {
  const warnings: string[] = [];
  const durable = await DurableState.open({ dir, ...options, warn: (m) => warnings.push(m) });
  const state = new MockState(devToken);
  if (durable.fresh) state.addTenant('dev');
  await durable.attach(state);
  return { durable, state, warnings, markings: state.addTenant('dev').markings };
}
