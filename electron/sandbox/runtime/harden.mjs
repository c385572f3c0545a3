// @ts-check
// Freezes the JavaScript intrinsics of a sandbox worker once Pyodide has loaded, before any user
// code runs: every object reachable from the global object (constructors, prototypes, their
// methods and accessors, namespaces such as JSON, Math, Reflect, Atomics, WebAssembly) becomes
// frozen, and so does the global object itself. Code that somehow got a JavaScript foothold then
// cannot change a built-in that the runtime, the supervisor's messages or a later run would use.
// (The `ses` package's lockdown() must run before any other code; Pyodide and Emscripten must run
// first here, so the same idea is applied to what exists once they have.)

/** Objects whose contents cannot be frozen (views of memory) are left as they are, their prototypes not. */
function isMemoryView(/** @type {object} */ o) {
  try {
    return ArrayBuffer.isView(o);
  } catch {
    return false;
  }
}

/**
 * Deep-freeze everything reachable from `root` through own properties, accessors and prototypes.
 * Returns how many objects were frozen.
 * @param {object} root
 * @returns {number}
 */
export function hardenIntrinsics(root) {
  // Node defines some globals (DOMException, performance, crypto …) as accessors: getters that
  // replace themselves on first use, setters that replace the value. Each becomes a plain read-only
  // value (what its getter gives now), so freezing the global object also fixes what they hold.
  for (const key of Reflect.ownKeys(root)) {
    const d = Reflect.getOwnPropertyDescriptor(root, key);
    if (!d || 'value' in d || !d.configurable) continue;
    try {
      const value = /** @type {any} */ (root)[key];
      Object.defineProperty(root, key, {
        value,
        writable: false,
        enumerable: d.enumerable,
        configurable: false,
      });
    } catch {
      // a getter that throws stays as it is
    }
  }
  const seen = new Set();
  /** @type {unknown[]} */
  const stack = [root];
  let frozen = 0;
  while (stack.length > 0) {
    const o = stack.pop();
    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) continue;
    if (seen.has(o)) continue;
    seen.add(o);
    stack.push(Object.getPrototypeOf(o));
    for (const key of Reflect.ownKeys(o)) {
      let d;
      try {
        d = Reflect.getOwnPropertyDescriptor(o, key);
      } catch {
        continue;
      }
      if (!d) continue;
      if ('value' in d) stack.push(d.value);
      else {
        stack.push(d.get);
        stack.push(d.set);
      }
    }
    if (isMemoryView(o)) continue;
    try {
      Object.freeze(o);
      frozen++;
    } catch {
      // an exotic object that refuses: its properties were still walked
    }
  }
  return frozen;
}
