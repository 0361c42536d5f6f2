// Prints the widget's state schema as JSON (static/attention-view/core/state.js schemaJSON):
// what the Python side reads instead of the JavaScript. `make schema` writes its output to
// static/attention-view/state-schema.json; tests/test_state_schema.py fails when that file
// is out of date.
//   node site/state_schema.mjs > static/attention-view/state-schema.json
import { schemaJSON } from "../static/attention-view/core/state.js";

process.stdout.write(JSON.stringify(schemaJSON(), null, 2) + "\n");
