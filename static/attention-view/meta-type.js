// @ts-check
// Written by `make schema` (tools/meta_schema_outputs.py) from meta.json's schema,
// attention_live/meta.schema.json: do not edit; tests/test_meta_schema.py fails when it is out of date.

/**
 * meta.json: The model folder's description, written by `python -m export` (export/__main__.py build_artifacts) and read by the site build, the attention_live package and the widget.
 * @typedef {Object} Meta
 * @property {2} format_version  the format of this file; readers refuse any other
 * @property {{vocab_size: number, n_ctx: number, n_layer: number, n_head: number, d_model: number, d_head: number, d_ff: number, dropout: number, attn_dropout: number, positions: "alibi"|"learned", attn_only_layers: number}} config  the model's shape (train/model.py ModelConfig) and d_head
 * @property {{scheme: "alibi"|"learned", slopes?: number[][], standard_slopes?: number[]}} positions  the position scheme the graph computes; with ALiBi its distance-bias slopes
 * @property {Object<string, number[]>} head_order  heads renumbered at export: layer ("1", "2", ...) -> old head numbers, 1-based ({} = none)
 * @property {number} n_params  parameters of the model
 * @property {{"model.onnx": {bytes: number, sha256: string}, "tokenizer.json": {bytes: number, sha256: string}, "golden.json": {bytes: number, sha256: string}} & Object<string, {bytes: number, sha256: string}>} files  the files beside meta.json, each checked against its size and sha256 before use
 * @property {{heldout_bpc: number, baselines_bpc: {"gzip-9": number, xz: number, bzip2: number}, best_step: number, steps_run: number, history: number[][], in_context_gain: number, heldout_loss_nats: number}} metrics  the training run's figures
 * @property {Object<string, any>} train_args  every training setting (train/settings.py), the model config included
 * @property {string|null} [recipe]  the recipe the run's settings started from, by name (train/recipes/NAME.toml; train_args has what it ran with, STEPS=N or flags beside it change some); a model trained before recipes had names: the recipe whose settings it ran with exactly, null when it matches none
 * @property {{name: string, description: string, sha256: string, chars: number, heldout_chars: number, companions: {name: string, chars: number, sha256: string}[]}} corpus  the training text
 * @property {{text: string, layer: number, head: number, token: number, view: "head", top_weight: number, top_key: number, query_text: string, top_key_text: string, chosen_by: string, source: string, rule: string, story: {name: string, definition: string, sentence_set: {agree: number, total: number, share: number}, mean_weight_on_speaker: number, nearer_name_set: {agree: number, total: number, share: number}}|null, switch_off: {rule: string, heads: {layer: number, head: number, weight: number}[]}|null}} default  the view the page opens on (export/default_view.py)
 * @property {({layer: number, head: number, role: string, scores: Object<string, number|null>, example: {text: string, token: number, key: number, weight: number, query_text: string, key_text: string}|null})[]} heads  every head, layer by layer
 * @property {{scores: ({name: string, label: string, hint: string, measured_on: string, role: string|null})[], roles: ({order: number, role: string, score: string|null, at_least: number|null})[], role_rule: string, even_attention: Object<string, number>, windows: string, repeated: string, in_context_gain: string, example: string, example_source: "held-out text"|"sample text export/probe_text.txt"}} head_definitions  what the head scores and roles mean (export/head_scores.py); also one definition text per score name
 * @property {{head: {layer: number, head: number}, induction: number, in_context_gain: number, definition: string, switch_off: {layer: number, head: number, induction: number, in_context_gain: number}[], composes_with: {layer: number, head: number}|null, stripe: number, example?: {text: string, token: number, key: number, weight: number}|null}|null} circuit  the induction circuit, when the model has an induction head after layer 1 (else null; export/circuit.py)
 * @property {{definition: string, positions: number, logit: number, heads: number[][], embed: number, attn_bias: number[], mlp: number[], ln_bias: number}} [direct_contribution]  each head's mean direct contribution to the model's own top-1 prediction on the held-out windows, and the rest of the sum (absent in an older export; export/mean_contribution.py)
 * @property {{manifest: string, bytes: number, sha256: string, steps: number}} [timeline]  the training timeline beside the model (absent without snapshots; export/timeline.py)
 * @property {{opset: number, axes: Object<string, (number|string)[]>, inputs: Object<string, string>}} onnx  the graph's interface (attention_live/feeds.py)
 */

export {};
