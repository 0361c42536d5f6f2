// The embed entry point: one module script defines <attention-view>.
//   <script type="module" src="/static/attention-view.js"></script>
//   <attention-view text="The Queen looked at Alice and said" layer="2" head="3"></attention-view>
// Pages that want another tag name, or to set attributes before the element starts, import
// { define } from "./av-element.js" instead.

import { define } from "./av-element.js";

export { AttentionView, define } from "./av-element.js";
export const AttentionViewElement = define();
