// Optional head script for pages whose first <attention-view> is visible at once: starts the
// runtime, its wasm compile and the model download before the element's own modules have
// even arrived. Load it with <script type="module" async src=".../av-boot.js">. The element
// later asks the runner for the same folder and gets this very load (one fetch, one session).
// Pages whose views are all loading="lazy" should leave it out.

import { folderURL, loadModel } from "./av-runner.js";

loadModel(folderURL("model/", import.meta.url)).catch(() => {
  // The element retries and reports; an early failure here must not become a page error.
});
