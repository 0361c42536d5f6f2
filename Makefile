# Entry points. Each target bootstraps what it needs: a fresh clone needs only python3, node/npm
# and (for the browser tests) Debian's chromium, which `make test` installs when it is missing.

PY        := .venv/bin/python
VENV      := .venv/.installed
NODE      := node_modules/.installed
CHROMIUM  := /usr/bin/chromium
# The team's copy of the training texts when it is there, else what `make corpus` downloads.
CORPUS_DIR ?= $(if $(wildcard ../shared/corpus/alice.txt),../shared/corpus,corpus)
CORPUS    ?= $(CORPUS_DIR)/alice.txt
COMPANIONS ?= $(CORPUS_DIR)/companions
CKPT      ?= checkpoints/alice.pt
PORT      ?= 8000
# The built site: a folder of its own (setuptools writes build/ on `pip install .`).
SITE      := _site
DESCRIPTION ?= Alice's Adventures in Wonderland by Lewis Carroll (Project Gutenberg \#11), last 10% held out; eleven companion books train only
# Heads carry no order: HEAD_ORDER="2:3,1,2,4" renumbers layer 2's at export so that the head a
# story is about sits where the chapter names it. The shipped model needs none (README, "The
# default view"): its speaker head already is layer 2, head 3.
HEAD_ORDER ?=
SUDO      := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: serve test site model train export bench eval clean corpus lint screenshot schema

serve: site
	@echo "Serving the live page at http://127.0.0.1:$(PORT)/  (Ctrl-C to stop)"
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory $(SITE)

test: $(VENV) $(NODE) $(CHROMIUM) lint
	$(PY) -m pytest

site: $(VENV) $(NODE)
	$(PY) site/build.py --out $(SITE)

# Retrain tokenizer + model on CORPUS + COMPANIONS and re-export static/model/ (~6 minutes on 2 cores).
model: train export

# Download the training texts from Project Gutenberg into corpus/ (git-ignored), for anyone
# without ../shared/corpus. Offline it stops with one clear error.
corpus: $(VENV)
	$(PY) -m train.download --out corpus

train: $(VENV)
	OMP_WAIT_POLICY=PASSIVE $(PY) -m train --corpus "$(CORPUS)" --companions $(COMPANIONS) --out $(CKPT)

export: $(VENV)
	$(PY) -m export --checkpoint $(CKPT) --corpus "$(CORPUS)" --out static/model \
		--corpus-description "$(DESCRIPTION)" $(if $(HEAD_ORDER),--head-order "$(HEAD_ORDER)")

# ruff for the Python, and TypeScript's checker over the widget's JavaScript (tsconfig.json:
# JSDoc types, no build step; the shipped files are the checked ones).
lint: $(VENV) $(NODE)
	$(PY) -m ruff check .
	node_modules/.bin/tsc --noEmit -p tsconfig.json

# The widget's state keys for the Python side (site/build.py, site/model_card.py), written from
# its schema (static/attention-view/core/state.js); tests/test_state_schema.py checks it is current.
SCHEMA_JSON := static/attention-view/state-schema.json
schema: $(NODE)
	node site/state_schema.mjs > $(SCHEMA_JSON).tmp && mv $(SCHEMA_JSON).tmp $(SCHEMA_JSON)

bench: site $(CHROMIUM)
	$(PY) bench/run.py

# docs/screenshot.png (shown at the top of the README) from a fresh build in headless Chromium.
screenshot: $(VENV) $(NODE) $(CHROMIUM)
	$(PY) bench/screenshot.py

$(VENV): pyproject.toml
	python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet '.[test]'
	touch $@

$(NODE): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

$(CHROMIUM):
	@echo "Installing Debian's chromium for the browser tests (about 90 s)..."
	$(SUDO) apt-get update
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

clean:
	rm -rf $(SITE) build .pytest_cache

# The issue-7 targets for the shipped files: held-out bits per character beside gzip -9, xz and
# bzip2, the default view's weight and sentence-set agreement, and the best head scores.
eval: $(VENV)
	$(PY) -m train.evaluate --checkpoint $(CKPT) --corpus "$(CORPUS)" --meta static/model/meta.json
