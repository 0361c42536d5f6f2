// Optional head script for pages whose first <attention-view> is visible at once: starts the
// runtime, its wasm compile and the model download before the element's own modules have
// even arrived. Load it with <script type="module" async src=".../attention-view/preload.js">.
// The element later asks the loader for the same folder and gets this very load (one fetch,
// one session). Pages whose views are all loading="lazy" should leave it out.

import { folderURL, loadModel } from "./model-loader.js";

loadModel(folderURL("../model/", import.meta.url)).catch(() => {
  // The element retries and reports; an early failure here must not become a page error.
});
