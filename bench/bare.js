// The benchmark's floor: the least a page can do to show one live result — load the runtime,
// the tokenizer and the model (in parallel, as a careful hand-written page would), tokenize,
// run once. No UI, no golden.json, no rendering.
import * as ort from "../static/vendor/ort.wasm.min.mjs";
import { Tokenizer } from "../static/vendor/tokenizers.min.mjs";

ort.env.wasm.numThreads = 1;
ort.env.logLevel = "error";  // as the widget: head_mask's default is on purpose
const folder = "../static/model/";
const text = new URLSearchParams(location.search).get("text") || "The Queen said";

const [tokenizer, session] = await Promise.all([
  fetch(folder + "tokenizer.json").then((r) => r.json()).then((j) => new Tokenizer(j, {})),
  ort.InferenceSession.create(folder + "model.onnx", { executionProviders: ["wasm"], logSeverityLevel: 3 }),
]);

function tensor(ids) {
  return new ort.Tensor("int64", BigInt64Array.from(ids, (i) => BigInt(i)), [1, ids.length]);
}

const first = tokenizer.encode(text, { add_special_tokens: false }).ids;
await session.run({ input_ids: tensor(first) });
performance.mark("bare:first-result");

// Hooks for bench/run.py: a bare session.run, and tokenize + run (no render).
window.bare = {
  encode: (t) => tokenizer.encode(t, { add_special_tokens: false }).ids,
  run: (ids) => session.run({ input_ids: tensor(ids) }),
  update: (t) => session.run({ input_ids: tensor(tokenizer.encode(t, { add_special_tokens: false }).ids) }),
};
document.documentElement.dataset.ready = "1";
