// @ts-check
// The public entry: one module script defines <attention-view>.
//   <script type="module" src="/static/attention-view.js"></script>
//   <attention-view text="The Queen looked at Alice and said" layer="2" head="3"></attention-view>
// The widget's modules live in attention-view/ (docs/widget.md has the map); widget.js is the
// whole widget as one module (bundled in the built site). Pages that want another tag name, or
// to set attributes before the element starts, import { define } from
// "./attention-view/widget.js" instead.

import { define } from "./attention-view/widget.js";

// setDownloadTimeout: how long a model download may receive nothing before it fails and offers
// a retry (30 s).
export { AttentionView, define, setDownloadTimeout } from "./attention-view/widget.js";
export const AttentionViewElement = define();
