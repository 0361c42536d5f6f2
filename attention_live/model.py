"""`Model`: an exported model folder through onnxruntime, the very graph the page runs in the
browser, fed the same way (`feeds.graph_feeds`) and read the same way: tokens labelled as the
page's chips, top-k next tokens as its readout, continuations picked by its sampler."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

import numpy as np

from attention_live import sampler, tokens
from attention_live.attribution import Attribution, attribution_at, lens_at
from attention_live.errors import ModelError
from attention_live.feeds import ATTRIBUTION_OUTPUTS, OUTPUTS, graph_feeds
from attention_live.folder import check_files, model_folder, read_meta
from attention_live.graph_check import check_graph
from attention_live.heads import Head, check_head, heads_of, parse_ablate, quoted, whole

# generate()'s settings: sampler.js DEFAULTS, except that Python is greedy unless asked (the
# page's Continue button samples at 0.8; generate(temperature=0.8) gives its tokens).
DEFAULT_TOKENS, DEFAULT_TOP_K, DEFAULT_SEED = 20, 40, 1


@dataclass(frozen=True)
class Token:
    id: int
    text: str  # the characters this token starts (the page's chip); "" for a character's tail
    piece: str  # the vocabulary string, as tokenizer.json spells it


@dataclass(frozen=True)
class Prediction:
    id: int
    text: str
    p: float  # softmax of every logit at that position, float64


@dataclass
class Run:
    """One text through the graph. Arrays are [layer, head, query, key] (0-based axes; the
    page names layers and heads from 1); logits [T, vocab]."""

    text: str
    tokens: list[Token]
    attention: np.ndarray
    scores: np.ndarray  # what softmax saw: masked (future) keys are -inf
    logits: np.ndarray
    ablated: list[tuple[int, int]]  # heads switched off, (layer, head) 1-based
    truncated: dict | None  # {"total", "start"} when the text has more than n_ctx tokens
    _pieces: object
    _attribution: dict  # the graph's attribution outputs at every position ({} for an older graph)

    @property
    def ids(self) -> list[int]:
        return [t.id for t in self.tokens]

    def _position(self, position) -> int:
        T = len(self.tokens)
        if not (whole(position) and -T <= position < T):
            raise ModelError(f"there is no token {position!r}: the text has {T} tokens (0 to {T - 1})")
        return int(position) % T

    @staticmethod
    def _k(k) -> int:
        if not (whole(k) and k >= 1):
            raise ModelError(f"k must be a whole number, at least 1, not {k!r}")
        return int(k)

    def top(self, position: int = -1, k: int = 5) -> list[Prediction]:
        """The k most likely next tokens after `position` (negative counts from the end)."""
        row = self.logits[self._position(position)]
        return [Prediction(i, self._pieces(i), sampler.plain_p(row, i)) for i in sampler.candidates(row, self._k(k))]

    def attribution(self, position: int = -1) -> Attribution:
        """What pushed the top 5 next tokens after `position` (and the text's next token): each
        component's direct contribution to their logits, every head's split by key
        (attention_live/attribution.py; definitions in docs/model-files.md)."""
        return attribution_at(self._attribution, self.logits, self._position(position), len(self.tokens), self._pieces)

    def lens(self, position: int = -1, k: int = 5) -> list[list[Prediction]]:
        """The logit lens at `position`: [layer] -> the k most likely next tokens after that layer
        (the last layer's are top()'s)."""
        return lens_at(self._attribution, self._position(position), self._k(k), self._pieces)


@dataclass(frozen=True)
class Generated:
    id: int
    text: str
    p: float  # what the model gave this token (plain softmax), whatever the settings did


@dataclass(frozen=True)
class Generation:
    text: str  # the prompt followed by what the model wrote
    tokens: list[Generated]
    reason: str  # "max-tokens", or "window" when the model's context filled up first


def _number(name: str, value, valid, rule: str):
    """`value` as a Python int or float (numpy's scalars included), or ModelError naming `rule`."""
    if isinstance(value, bool) or not isinstance(value, Real) or not valid(value):
        raise ModelError(f"{name} must be {rule}, not {quoted(value)}")
    return int(value) if whole(value) else float(value)


def _finite(value) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


class Model:
    """The shipped model, or `Model("path/to/folder")` for any folder `python -m export` wrote."""

    def __init__(self, path: str | Path | None = None):
        import onnxruntime
        from tokenizers import Tokenizer

        self.folder = model_folder(path)
        self.meta = read_meta(self.folder)
        check_files(self.folder, self.meta)
        self.config = self.meta["config"]
        try:
            self.tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = 1  # the page's runtime is single-threaded too; T <= 128 is small
            self.session = onnxruntime.InferenceSession(str(self.folder / "model.onnx"), options,
                                                        providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime and tokenizers raise their own bare exception types
            raise ModelError(f"{self.folder} does not hold a loadable model ({str(err).splitlines()[0]})")
        check_graph(self.folder, self.config, self.session, self.tokenizer.get_vocab_size())
        self._output_names = {node.name for node in self.session.get_outputs()}

    def __repr__(self) -> str:
        c = self.config
        layers, heads = (f"{n} {word}{'' if n == 1 else 's'}" for n, word in ((c["n_layer"], "layer"), (c["n_head"], "head")))
        return f"Model({str(self.folder)!r}: {layers} x {heads}, {c['n_ctx']} tokens of context)"

    @property
    def heads(self) -> list[Head]:
        """Every head with its measured role and scores (meta.json `heads`; definitions in
        `meta['head_definitions']`)."""
        return heads_of(self.meta)

    def head(self, layer: int, head: int) -> Head:
        check_head(self.config, layer, head)
        found = [h for h in self.heads if (h.layer, h.head) == (layer, head)]
        if not found:
            raise ModelError(f"meta.json has no measurements for head {layer}.{head}")
        return found[0]

    def piece_text(self, token_id: int) -> str:
        """A vocabulary entry as one chip shows it on its own (token-labels.js pieceLabel)."""
        self._check_id(token_id)
        return tokens.labels([self.tokenizer.id_to_token(token_id) or ""])[0]

    def _check_id(self, token_id) -> int:
        V = self.config["vocab_size"]
        if not (whole(token_id) and 0 <= token_id < V):
            raise ModelError(f"{quoted(token_id)} is no token id: ids are whole numbers from 0 to {V - 1}")
        return int(token_id)

    def _ids(self, text) -> tuple[list[int], dict | None]:
        if not isinstance(text, str):
            raise ModelError(f"the text must be a string, not {type(text).__name__}")
        if text == "":
            raise ModelError("the text is empty: give the model at least one token to read")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as err:
            # A lone surrogate (half of a UTF-16 pair, e.g. from a cut emoji) is no character.
            raise ModelError(f"the text has a lone surrogate, U+{ord(text[err.start]):04X} at character {err.start}, "
                             "which is no character: pass the text whole (both halves of the pair) or leave it out")
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        n = self.config["n_ctx"]
        # As the page does: a longer text shows its last n_ctx tokens.
        return (ids[-n:], {"total": len(ids), "start": len(ids) - n}) if len(ids) > n else (ids, None)

    def _mask(self, head_mask, ablate) -> tuple[np.ndarray | None, list[tuple[int, int]]]:
        L, H = self.config["n_layer"], self.config["n_head"]
        off = parse_ablate(self.config, ablate)
        if head_mask is None:
            mask = None
        else:
            try:
                mask = np.array(head_mask)
                if mask.dtype.kind not in "biuf":  # numpy would read the strings "1" and "0" as numbers
                    raise TypeError
                mask = mask.astype(np.float32)
            except (TypeError, ValueError, OverflowError):
                raise ModelError(f"head_mask must be numbers, an array of shape ({L}, {H}) (1 = on, 0 = off), not {quoted(head_mask)}")
            if mask.shape != (L, H):
                raise ModelError(f"head_mask must have shape ({L}, {H}) (layer, head; 1 = on, 0 = off), not {mask.shape}")
            if not np.isfinite(mask).all():
                # A NaN or an infinity in the mask makes every output NaN.
                raise ModelError("head_mask must hold finite numbers (1 = on, 0 = off), not NaN or infinity")
        for layer, head in off:
            mask = np.ones((L, H), np.float32) if mask is None else mask
            mask[layer - 1, head - 1] = 0
        ablated = [] if mask is None else [(int(l) + 1, int(h) + 1) for l, h in np.argwhere(mask == 0)]
        return mask, ablated

    def _outputs(self, ids, mask, attribution: bool = False) -> dict[str, np.ndarray]:
        """The graph's outputs at every position; its attribution outputs too when asked and it has them."""
        names = list(OUTPUTS)
        if attribution and all(name in self._output_names for name in ATTRIBUTION_OUTPUTS):
            names += ATTRIBUTION_OUTPUTS
        return dict(zip(names, self.session.run(names, graph_feeds(self.session, ids, mask))))

    def run(self, text: str, head_mask=None, *, ablate=None) -> Run:
        """The graph on `text`: tokens, attention and scores [layer, head, query, key], logits.

        head_mask: [n_layer, n_head], 1 = on, 0 = switched off (None: every head on);
        ablate: heads to switch off, "1.2 2.3" or [(1, 2), (2, 3)] (the page's `ablate`)."""
        ids, truncated = self._ids(text)
        return self._run(ids, text, truncated, head_mask, ablate)

    def run_ids(self, ids, head_mask=None, *, ablate=None) -> Run:
        """run() on token ids as they are (a continuation's ids need not be what its text
        tokenizes to: byte-level BPE may merge across the join)."""
        n_ctx = self.config["n_ctx"]
        if isinstance(ids, np.ndarray) and ids.ndim == 1:
            ids = ids.tolist()
        if not isinstance(ids, (list, tuple)):
            raise ModelError(f"ids must be a list of token ids, not {type(ids).__name__}")
        if not 1 <= len(ids) <= n_ctx:
            raise ModelError(f"the model reads 1 to {n_ctx} token ids, not {len(ids)}")
        ids = [self._check_id(i) for i in ids]
        return self._run(ids, None, None, head_mask, ablate)

    def _run(self, ids, text, truncated, head_mask, ablate) -> Run:
        mask, ablated = self._mask(head_mask, ablate)
        out = self._outputs(ids, mask, attribution=True)
        pieces = [self.tokenizer.id_to_token(i) or "" for i in ids]
        labels = tokens.labels(pieces)
        toks = [Token(i, label, piece) for i, label, piece in zip(ids, labels, pieces)]
        text = "".join(labels) if text is None else text
        return Run(text, toks, out["attention"], out["scores"], out["logits"][0], ablated, truncated, self.piece_text,
                   {name: out[name] for name in ATTRIBUTION_OUTPUTS if name in out})

    def generate(self, text: str, max_tokens: int = DEFAULT_TOKENS, temperature: float = 0,
                 top_k: int = DEFAULT_TOP_K, seed: int = DEFAULT_SEED, *, head_mask=None, ablate=None) -> Generation:
        """Continues `text` as the page's Continue does: token n picked from the logits at n - 1
        with draw n of the seed's stream (sampler.js), never past the model's window.
        temperature 0 (the default) is greedy: the most likely token, ties to the lower id."""
        max_tokens = _number("max_tokens", max_tokens, lambda n: whole(n) and n >= 1, "a whole number, at least 1")
        temperature = _number("temperature", temperature, lambda t: _finite(t) and t >= 0, "a number, at least 0 (0 = greedy)")
        top_k = _number("top_k", top_k, lambda k: whole(k) and k >= 1, "a whole number, at least 1")
        seed = _number("seed", seed, lambda s: whole(s) and 0 <= s <= sampler.MAX_SEED,
                       f"a whole number from 0 to {sampler.MAX_SEED}")
        ids, truncated = self._ids(text)
        n_ctx = self.config["n_ctx"]
        room = 0 if truncated else n_ctx - len(ids)
        if room <= 0:
            raise ModelError(f"the text already fills the model's window of {n_ctx} tokens, so there is no room to continue it")
        mask, _ = self._mask(head_mask, ablate)
        prompt = len(ids)
        picked = []
        for _ in range(min(max_tokens, room)):
            q = len(ids) - 1
            row = self._outputs(ids, mask)["logits"][0, q]
            u = None if temperature == 0 else sampler.uniform_at(seed, q + 1)
            token = sampler.pick(row, temperature, top_k, u)
            picked.append((token, sampler.plain_p(row, token)))
            ids.append(token)
        labels = tokens.labels([self.tokenizer.id_to_token(i) or "" for i in ids])
        written = [Generated(i, labels[prompt + n], p) for n, (i, p) in enumerate(picked)]
        reason = "window" if len(picked) < max_tokens else "max-tokens"
        return Generation(text + "".join(labels[prompt:]), written, reason)
