// The benchmark's floor: the least a page can do to show one live result — load the runtime,
// the tokenizer and the model (in parallel, as a careful hand-written page would), tokenize,
// run once. No UI, no golden.json, no rendering.
import * as ort from "../static/vendor/ort.wasm.min.mjs";
import { Tokenizer } from "../static/vendor/tokenizers.min.mjs";

ort.env.wasm.numThreads = 1;
ort.env.logLevel = "error";  // as the widget
const folder = "../static/model/";
const text = new URLSearchParams(location.search).get("text") || "The Queen said";

const [tokenizer, session] = await Promise.all([
  fetch(folder + "tokenizer.json").then((r) => r.json()).then((j) => new Tokenizer(j, {})),
  // The widget's graph optimisations (model/ort-host.js): the floor is the best a bare page can do.
  ort.InferenceSession.create(folder + "model.onnx", { executionProviders: ["wasm"], logSeverityLevel: 3,
    graphOptimizationLevel: "basic" }),
]);

// Every head on, as the widget sends it (head_mask is a required input). Its shape
// [n_layer, n_head] is fixed in the graph, so the session's metadata has it.
const mask = session.inputMetadata.find((m) => m.name === "head_mask");
const everyHead = mask
  ? { head_mask: new ort.Tensor("float32", new Float32Array(mask.shape[0] * mask.shape[1]).fill(1), [...mask.shape]) } : {};
// One result needs one position's prediction: the last token's (the fewest logits a page can
// ask for; the widget asks for the pinned token's and the last one's).
const positions = session.inputNames.includes("logit_positions");

function feeds(ids) {
  const last = positions ? { logit_positions: new ort.Tensor("int64", BigInt64Array.of(BigInt(ids.length - 1)), [1]) } : {};
  return { input_ids: new ort.Tensor("int64", BigInt64Array.from(ids, (i) => BigInt(i)), [1, ids.length]), ...everyHead, ...last };
}

const first = tokenizer.encode(text, { add_special_tokens: false }).ids;
await session.run(feeds(first));
performance.mark("bare:first-result");

// Hooks for bench/run.py: a bare session.run, and tokenize + run (no render).
window.bare = {
  encode: (t) => tokenizer.encode(t, { add_special_tokens: false }).ids,
  run: (ids) => session.run(feeds(ids)),
  update: (t) => session.run(feeds(tokenizer.encode(t, { add_special_tokens: false }).ids)),
};
document.documentElement.dataset.ready = "1";
