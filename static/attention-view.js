// The public entry: one module script defines <attention-view>.
//   <script type="module" src="/static/attention-view.js"></script>
//   <attention-view text="The Queen looked at Alice and said" layer="2" head="3"></attention-view>
// The widget's modules live in attention-view/ (element.js is the element). Pages that want
// another tag name, or to set attributes before the element starts, import { define } from
// "./attention-view/element.js" instead.

import { define } from "./attention-view/element.js";

export { AttentionView, define } from "./attention-view/element.js";
// How long a model download may receive nothing before it fails and offers a retry (30 s).
export { setDownloadTimeout } from "./attention-view/model-loader.js";
export const AttentionViewElement = define();
