// The engine tests' recorder of a page's problems (tests/drivers): every console.error and
// console.warn call, uncaught error, failed resource load, unhandled rejection and CSP
// violation. WebKit's WebDriver hands out no console log, so the suite copies this script into
// the head of every page of its test site, for all three engines alike. It keeps what it saw in
// sessionStorage, which survives reloads and is shared with same-origin iframes; the driver
// reads it there.
(() => {
  const KEY = "test-recorder";
  function note(kind, text) {
    try {
      const all = JSON.parse(sessionStorage.getItem(KEY) || "[]");
      all.push(`${kind}: ${text}`);
      sessionStorage.setItem(KEY, JSON.stringify(all));
    } catch {
      // storage refused (a sandboxed frame): nothing to record into
    }
  }
  for (const level of ["error", "warn"]) {
    const original = console[level];
    console[level] = function (...args) {
      note(`console.${level}`, args.map(String).join(" "));
      return original.apply(this, args);
    };
  }
  addEventListener("error", (e) => {
    const target = e.target && e.target !== window ? e.target.src || e.target.href || e.target.localName : "";
    note("error", e.message || `failed to load ${target}`);
  }, true);
  addEventListener("unhandledrejection", (e) => note("unhandled rejection", String(e.reason?.stack || e.reason)));
  document.addEventListener("securitypolicyviolation", (e) => note("CSP", `${e.violatedDirective} ${e.blockedURI}`));
})();
