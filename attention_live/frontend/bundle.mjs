// Builds the notebook widget's one ES module: widget.js, the element's modules, onnxruntime-web's
// wasm bundle (its glue inlined; the wasm itself comes as bytes), the tokenizer and the
// element's style sheet (its @import inlined) as a string.
//   node attention_live/frontend/bundle.mjs OUT.mjs

import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const [out] = process.argv.slice(2);
if (!out) {
  console.error("error: give the output file: node attention_live/frontend/bundle.mjs OUT.mjs");
  process.exit(2);
}

const sheet = await build({
  entryPoints: [here("../../static/attention-view.css")], bundle: true, minify: true, write: false, logLevel: "error",
});

await build({
  entryPoints: [here("widget.js")],
  outfile: out,
  bundle: true,
  format: "esm",
  minify: true,
  logLevel: "error",
  // A blob URL is no base for relative URLs (`new URL("../model/", import.meta.url)` throws):
  // the modules' import.meta.url becomes the page's, which no request is made against here.
  define: { "import.meta.url": "ATTENTION_LIVE_BASE" },
  banner: { js: 'const ATTENTION_LIVE_BASE = import.meta.url.startsWith("blob:") ? location.href : import.meta.url;' },
  plugins: [{
    name: "attention-live",
    setup(b) {
      b.onResolve({ filter: /^attention-view-sheet$/ }, () => ({ path: "sheet", namespace: "sheet" }));
      b.onLoad({ filter: /.*/, namespace: "sheet" }, () => ({ contents: sheet.outputFiles[0].text, loader: "text" }));
      // The site's runtime files: the loader imports them only when nobody handed them over.
      b.onResolve({ filter: /\/vendor\// }, (args) => ({ path: args.path, external: true }));
    },
  }],
});
