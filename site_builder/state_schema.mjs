// Prints the widget's state schema (static/attention-view/state.js SCHEMA: core's keys and
// every feature's) as JSON, what the Python side reads instead of the JavaScript; with
// --typedef, its `State` typedef instead (static/attention-view/state-type.js). `make schema`
// writes both; tests/test_state_schema.py fails when either is out of date.
//   node site_builder/state_schema.mjs > static/attention-view/state-schema.json
//   node site_builder/state_schema.mjs --typedef > static/attention-view/state-type.js
import { SCHEMA } from "../static/attention-view/state.js";

const typedef = process.argv.includes("--typedef");
process.stdout.write(typedef ? SCHEMA.typedef() : JSON.stringify(SCHEMA.json(), null, 2) + "\n");
