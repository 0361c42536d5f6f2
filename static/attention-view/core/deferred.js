// @ts-check
// A promise with its resolve and reject in hand, and whether it has settled (the element's
// `ready` is one: a new one replaces it on every change once it has settled).

/**
 * @template T
 * @returns {{promise: Promise<T>, resolve: (v: T) => void, reject: (e: any) => void, settled: boolean}}
 */
export function deferred() {
  const d = /** @type {{promise: Promise<T>, resolve: (v: T) => void, reject: (e: any) => void, settled: boolean}} */ (
    /** @type {unknown} */ ({ settled: false, promise: null, resolve: null, reject: null }));
  d.promise = new Promise((res, rej) => {
    d.resolve = (v) => { d.settled = true; res(v); };
    d.reject = (e) => { d.settled = true; rej(e); };
  });
  d.promise.catch(() => {}); // a rejection nobody awaits must not become a page error
  return d;
}
