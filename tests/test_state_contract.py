"""The widget's state is assembled from core's keys and the registered features' (core/schema.js
assembleState): a feature's keys and actions exist exactly while it is listed, a new key follows
the keys links already carry, and a key or action declared twice is refused at once."""

from __future__ import annotations

from conftest import run_node

CONTRACT_JS = """
const { FEATURES } = await import(process.cwd() + "/static/attention-view/features.js");
const { SCHEMA } = await import(process.cwd() + "/static/attention-view/state.js");
const { assembleState } = await import(process.cwd() + "/static/attention-view/core/schema.js");
const order = SCHEMA.names;
const attempt = (f) => { try { return f(); } catch (err) { return "error: " + err.message; } };
const meta = { config: { n_layer: 2, n_head: 4, n_ctx: 128 }, default: { text: "x" } };
const dims = { count: 3, nLayer: 2, nHead: 4 };
const out = {};

const withoutTimeline = assembleState(FEATURES.filter((f) => f.name !== "timeline"), order.filter((k) => k !== "step"));
out.withoutTimeline = withoutTimeline.names;
out.stepWithout = attempt(() => withoutTimeline.reduce(withoutTimeline.resolve({}, meta), { type: "step", step: 3 }, dims));
out.stepWith = SCHEMA.reduce(SCHEMA.resolve({}, meta), { type: "step", step: 3 }, dims).step;

const focus = {
  name: "focus", mount: () => ({}),
  state: [{ key: "focus", property: "focus", type: "text", fallback: null, live: true, initial: (a) => a,
            parse: (a) => a ?? null, format: (v) => v, doc: "a made-up key" }],
  actions: { focus: (state, action) => ({ ...state, focus: action.focus }) },
};
const withFocus = assembleState([...FEATURES, focus], order);
out.withFocus = withFocus.names;
out.focusHash = withFocus.toHash(withFocus.reduce(withFocus.resolve({ text: "a b" }, meta), { type: "focus", focus: "yes" }, dims));
out.typedef = withFocus.typedef().includes("@property {string|null} focus  a made-up key");

out.twiceKey = attempt(() => assembleState([...FEATURES, { ...focus, state: [{ ...focus.state[0], key: "text" }] }], order));
out.twiceAction = attempt(() => assembleState([...FEATURES, { ...focus, actions: { pin: focus.actions.focus } }], order));
out.stale = attempt(() => assembleState(FEATURES, [...order, "gone"]));
process.stdout.write(JSON.stringify(out));
"""

KEYS = ["text", "token", "layer", "head", "view", "scale", "ablate", "compare", "step", "temperature", "topk",
        "seed", "compact", "target"]


def test_a_feature_brings_its_keys_and_actions():
    out = run_node(CONTRACT_JS)
    assert out["withoutTimeline"] == [k for k in KEYS if k != "step"]
    assert out["stepWithout"] == "error: unknown action step"
    assert out["stepWith"] == 3
    assert out["withFocus"] == [*KEYS, "focus"]
    assert out["focusHash"] == "#text=a%20b&layer=1&head=1&view=head&focus=yes"
    assert out["typedef"] is True


def test_a_key_or_action_twice_or_a_stale_order_is_refused():
    out = run_node(CONTRACT_JS)
    assert out["twiceKey"] == "error: state key text is declared twice (focus)"
    assert out["twiceAction"] == "error: action pin is declared twice (focus)"
    assert out["stale"] == "error: the state keys' order names keys nothing declares: gone"
