// A tiny observable store: one value, replaced (never mutated) by set().

/**
 * @template T
 * @typedef {{get: () => T, set: (patch: Partial<T>) => void, subscribe: (fn: (state: T, prev: T) => void) => () => void}} Store
 */

/**
 * @template {object} T
 * @param {T} initial
 * @returns {Store<T>}
 */
export function createStore(initial) {
  let state = initial;
  /** @type {Set<(state: T, prev: T) => void>} */
  const subs = new Set();
  return {
    get: () => state,
    set(patch) {
      const prev = state;
      state = Object.assign({}, state, patch);
      for (const fn of [...subs]) fn(state, prev);
    },
    subscribe(fn) {
      subs.add(fn);
      return () => { subs.delete(fn); };
    },
  };
}
