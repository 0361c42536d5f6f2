// @ts-check
// The one attention representation from onnxruntime to `el.result`: the graph's flat output
// buffer (shape [layer][head][query][key], 0-based) with accessors that hand out rows and
// matrices as views on it. golden.json's nested arrays become one of these once, when read;
// the public `result.attention` is its nested form, built once per run on first request.

export class AttentionTensor {
  /**
   * @param {Float32Array|Float64Array} data  L·H·T·T values, layer-major
   * @param {number} L  layers
   * @param {number} H  heads per layer
   * @param {number} T  tokens
   */
  constructor(data, L, H, T) {
    if (data.length !== L * H * T * T) throw new Error(`attention of ${data.length} values is not ${L}×${H}×${T}×${T}`);
    this.data = data;
    this.L = L;
    this.H = H;
    this.T = T;
    /** @type {number[][][][]|null} */
    this.nestedCache = null;
  }

  /**
   * From [layer][head][query][key] arrays (JSON has no typed arrays, and no -Infinity: `null`
   * cells become `masked`).
   * @param {(number|null)[][][][]} nested
   * @param {number} masked
   */
  static fromNested(nested, masked = 0) {
    const L = nested.length;
    const H = L ? nested[0].length : 0;
    const T = H ? nested[0][0].length : 0;
    const data = new Float64Array(L * H * T * T);
    let i = 0;
    for (const layer of nested) for (const head of layer) for (const row of head) {
      for (const v of row) data[i++] = v === null ? masked : v;
    }
    return new AttentionTensor(data, L, H, T);
  }

  /**
   * Index of one cell in `data`.
   * @param {number} layer @param {number} head @param {number} [query] @param {number} [key]
   */
  offset(layer, head, query = 0, key = 0) {
    return ((layer * this.H + head) * this.T + query) * this.T + key;
  }

  /**
   * One head's row for `query` (T values; keys after the query are 0, or -Infinity in scores).
   * @param {number} layer @param {number} head @param {number} query
   */
  row(layer, head, query) {
    const at = this.offset(layer, head, query);
    return this.data.subarray(at, at + this.T);
  }

  /**
   * One head's T × T matrix, row-major.
   * @param {number} layer @param {number} head
   */
  matrix(layer, head) {
    const at = this.offset(layer, head);
    return this.data.subarray(at, at + this.T * this.T);
  }

  /** Plain [layer][head][query][key] arrays, for the public API (built once, then shared). */
  nested() {
    const { L, H, T } = this;
    this.nestedCache ??= Array.from({ length: L }, (_, l) => Array.from({ length: H }, (_, h) =>
      Array.from({ length: T }, (_, q) => Array.from(this.row(l, h, q)))));
    return this.nestedCache;
  }
}
