"""<attention-view> against faults a reader meets (corrupt, truncated and stalled downloads, a
runtime that fails to start, a changed `src`, a pasted book), in real Chromium against a
fault-injecting server (tests/widget_faults.py). No part of onnxruntime is mocked: every number
comes from the graph. "Show the math" for other position schemes: test_widget_show_the_math.py.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from widget_faults import (  # noqa: F401  (fixtures)
    MODEL_DIR,
    ROOT,
    click_retry,
    fault_server,
    faults,
    page_html,
    sha256,
    status_text,
    view_result,
    wait_status,
    wpage,
)

pytestmark = pytest.mark.browser

TEXT = "The Queen turned to Alice and said"
PAGE = "/t/page.html"
TOL = 1e-5  # float32 attention from two builds of onnxruntime (wasm and CPU)


def open_page(page, faults, attrs=f'text="{TEXT}"', timeout_ms=None, src=None):
    faults.files[PAGE] = page_html(attrs, timeout_ms, src)
    page.goto(faults.url + PAGE)


def assert_matches(result, reference, text=TEXT):
    ids = reference.ids(text)
    assert [t["id"] for t in result["tokens"]] == ids
    np.testing.assert_allclose(np.array(result["attention"]), reference.attention(ids), atol=TOL, rtol=0)


# --- item 2: a corrupt or invalid download; the retry must ask the server again -------------


@pytest.mark.parametrize("name", ["model.onnx", "tokenizer.json"])
def test_retry_recovers_from_a_corrupt_download(wpage, faults, reference, name):
    faults.fault(f"/static/model/{name}", ("corrupt",))
    open_page(wpage, faults)
    wait_status(wpage, "error")
    assert f"{name} is corrupt or from another version" in status_text(wpage)
    assert wpage.locator("attention-view .retry").is_visible()
    before = faults.count("/meta.json"), faults.count(f"/{name}")

    click_retry(wpage)
    wait_status(wpage, "live")
    assert_matches(view_result(wpage), reference)
    # The server was asked again for the file, and for meta.json (it may be the stale one),
    # although every answer said it could be cached for an hour.
    assert faults.count(f"/{name}") == before[1] + 1
    assert faults.count("/meta.json") == before[0] + 1
    assert wpage.page_errors == []


def test_a_truncated_model_is_reported_as_corrupt(wpage, faults, reference):
    faults.fault("/static/model/model.onnx", ("truncate", 300_000))
    open_page(wpage, faults)
    wait_status(wpage, "error")
    assert "model.onnx is corrupt or from another version" in status_text(wpage)
    click_retry(wpage)
    wait_status(wpage, "live")
    assert_matches(view_result(wpage), reference)


# --- item 3: onnxruntime fails to start (its wasm is missing); the retry starts it again ----


def test_retry_restarts_a_runtime_that_failed_to_start(wpage, faults, reference):
    faults.fault("/static/vendor/ort-wasm-simd-threaded.wasm", ("status", 404))
    open_page(wpage, faults)
    wait_status(wpage, "error")
    assert faults.count(".wasm") == 1
    click_retry(wpage)
    wait_status(wpage, "live")
    assert faults.count(".wasm") == 2  # a new request, not the remembered failure
    assert_matches(view_result(wpage), reference)


# --- item 4: a download that stalls times out, with progress shown while bytes arrive -------


def test_a_stalled_download_shows_progress_then_times_out_and_retries(wpage, faults, reference):
    faults.fault("/static/model/model.onnx", ("stall", 400_000))
    # 6 s without data: long enough that a busy machine still shows (and the test still sees)
    # the progress before the timeout fires.
    open_page(wpage, faults, timeout_ms=6000)
    # Progress while the bytes arrive: 400 kB of 1.3 MB (plus the tokenizer) is about a third.
    try:
        wpage.wait_for_function(
            "() => /loading the model .*\\b[1-9]\\d?%/.test(document.querySelector('attention-view')"
            "?.shadowRoot?.querySelector('.status-text')?.textContent)", timeout=30_000)
    except Exception:
        raise AssertionError(status_text(wpage))
    percent = int(re.search(r"(\d+)%", status_text(wpage)).group(1))
    assert 20 <= percent <= 50, status_text(wpage)
    wait_status(wpage, "error")
    assert "model.onnx stopped arriving (no data for 6 s)" in status_text(wpage)
    assert wpage.locator("attention-view .retry").is_visible()
    click_retry(wpage)
    wait_status(wpage, "live")
    assert_matches(view_result(wpage), reference)


# --- item 5: switching src to another model recomputes, and redraws the grid ---------------


def tiny_other_model(n_layer=1, n_head=2, vocab=2048, d=16) -> bytes:
    """Another model with the same tokenizer and the same graph outputs (logits, attention,
    scores) but 1 layer x 2 heads and random weights: exported here, so the test depends only
    on the file format (docs/model-files.md), not on the training code."""
    import io

    import torch

    torch.manual_seed(0)

    class Other(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(vocab, d)
            self.qk = torch.nn.Linear(d, 2 * d)
            self.out = torch.nn.Linear(d, vocab)

        def forward(self, input_ids):
            x = self.emb(input_ids)[0]  # [T, d]
            T = x.shape[0]
            q, k = self.qk(x).split(d, dim=-1)
            q = q.view(T, n_head, d // n_head).transpose(0, 1)
            k = k.view(T, n_head, d // n_head).transpose(0, 1)
            s = q @ k.transpose(-1, -2) / (d // n_head) ** 0.5
            mask = torch.ones(T, T, dtype=torch.bool).triu(1)
            s = s.masked_fill(mask, float("-inf"))
            a = s.softmax(-1)
            y = (a @ x.unsqueeze(0)).mean(0)
            return self.out(y).unsqueeze(0), a.unsqueeze(0).expand(n_layer, -1, -1, -1), s.unsqueeze(0).expand(n_layer, -1, -1, -1)

    buf = io.BytesIO()
    torch.onnx.export(Other().eval(), (torch.zeros(1, 7, dtype=torch.long),), buf,
                      input_names=["input_ids"], output_names=["logits", "attention", "scores"],
                      dynamic_axes={"input_ids": {1: "seq"}, "logits": {1: "seq"},
                                    "attention": {2: "q", 3: "k"}, "scores": {2: "q", 3: "k"}},
                      opset_version=17, dynamo=False)
    return buf.getvalue()


@pytest.fixture(scope="module")
def other_model():
    from reference import Reference

    onnx_bytes = tiny_other_model()
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    tokenizer = (MODEL_DIR / "tokenizer.json").read_bytes()
    meta["config"] = {**meta["config"], "n_layer": 1, "n_head": 2, "d_model": 16, "d_head": 8}
    meta["default"] = {**meta["default"], "layer": 1, "head": 2}
    meta["files"] = {"model.onnx": {"bytes": len(onnx_bytes), "sha256": sha256(onnx_bytes)},
                     "tokenizer.json": {"bytes": len(tokenizer), "sha256": sha256(tokenizer)},
                     "golden.json": meta["files"]["golden.json"]}  # listed by every meta.json; read for the default text only
    meta["positions"] = {"scheme": "learned"}  # this graph adds no distance bias
    files = {"/static/other/model.onnx": onnx_bytes, "/static/other/tokenizer.json": tokenizer,
             "/static/other/meta.json": json.dumps(meta).encode()}
    return files, Reference(onnx_bytes, MODEL_DIR / "tokenizer.json")


def test_switching_src_recomputes_with_the_new_model(wpage, faults, reference, other_model):
    files, other = other_model
    faults.files.update(files)
    open_page(wpage, faults, attrs=f'text="{TEXT}" layer="2" head="3"')
    wait_status(wpage, "live")
    assert_matches(view_result(wpage), reference)
    assert wpage.locator("attention-view .mini").count() == 2 * (4 + 2)

    wpage.evaluate("() => { document.querySelector('attention-view').src = '/static/other/'; }")
    result = view_result(wpage)
    assert result["live"] is True
    assert np.array(result["attention"]).shape[:2] == (1, 2)
    assert_matches(result, other)
    assert (result["layer"], result["head"]) == (1, 2)  # clamped to the new model's grid
    assert wpage.get_attribute("attention-view", "data-status") == "live"
    # The grid is the new model's: one layer of two heads, plus its average and rollout.
    assert wpage.locator("attention-view .mini").count() == 1 * (2 + 2)
    expected = np.array(other.attention(other.ids(TEXT)))[0, 1, -1]
    shown = wpage.locator("attention-view .chip .chip-pct").all_text_contents()
    assert len(shown) == len(expected)
    for text, w in zip(shown, expected):
        assert text == "<1%" and 0 < w < 0.005 or abs(int(text.rstrip("%")) - 100 * w) <= 0.5 + 1e-4, (text, w)

    # And back: the shipped model's numbers and grid again.
    wpage.evaluate("() => { document.querySelector('attention-view').removeAttribute('src'); }")
    assert_matches(view_result(wpage), reference)
    assert wpage.locator("attention-view .mini").count() == 2 * (4 + 2)
    assert wpage.page_errors == []


# --- item 7: a very long text costs a window's worth of tokenizing; the link keeps what is shown


@pytest.fixture(scope="module")
def book() -> str:
    alice = (ROOT.parent / "shared" / "corpus" / "alice.txt")
    text = alice.read_text(encoding="utf-8-sig") if alice.exists() else " ".join(
        f"word{i} and the Queen said" for i in range(40_000))
    while len(text) < 1_000_000:
        text += "\n" + text
    return text[:1_000_000]


def test_a_pasted_book_tokenizes_only_its_tail_and_the_link_keeps_what_is_shown(wpage, faults, reference, book):
    wpage.goto(faults.url + "/index.html")
    wait_status(wpage, "live")
    # Watch what the page hands the tokenizer (the same module instance the element uses).
    wpage.evaluate("""async () => {
      const { Tokenizer } = await import("/static/vendor/tokenizers.min.mjs");
      const encode = Tokenizer.prototype.encode;
      window.__encoded = [];
      Tokenizer.prototype.encode = function (text, ...rest) {
        window.__encoded.push(text.length);
        return encode.call(this, text, ...rest);
      };
    }""")
    wpage.evaluate("""(text) => {
      const box = document.querySelector("attention-view").shadowRoot.querySelector("textarea");
      box.value = text;
      box.dispatchEvent(new Event("input", { bubbles: true }));
    }""", book)
    result = view_result(wpage)
    n_ctx = 128
    ids = reference.ids(book)
    assert [t["id"] for t in result["tokens"]] == ids[-n_ctx:]
    encoded = wpage.evaluate("() => window.__encoded")
    assert encoded and max(encoded) < 50_000, encoded  # a tail of the text, not the megabyte
    notice = wpage.locator("attention-view .notice").text_content()
    assert f"only the last {n_ctx}" in notice and "\u00ab" in notice
    assert result["truncated"]["shown"] == n_ctx

    # The permalink (written after a typing pause) holds the shown part only, and says so.
    wpage.wait_for_selector(".permalink-note:not([hidden])", state="attached", timeout=10_000)
    hash_text = wpage.evaluate("() => new URLSearchParams(location.hash.slice(1)).get('text')")
    shown = "".join(t["text"] for t in result["tokens"])
    assert hash_text == shown and len(hash_text) < 5_000
    assert book.endswith(hash_text)
    assert "keeps only the part of the text the view shows" in wpage.locator(".permalink-note").text_content()
    assert wpage.page_errors == []
