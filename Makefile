# Entry points. Each target bootstraps what it needs: a fresh clone needs only python3, node/npm
# and (for the browser tests) Debian's chromium, firefox-esr and WebKitGTK driver under Xvfb,
# which `make test` installs when they are missing.

PY        := .venv/bin/python
VENV      := .venv/.installed
NODE      := node_modules/.installed
CHROMIUM  := /usr/bin/chromium
# The other engines the suite drives (tests/drivers): Firefox ESR through puppeteer-core, and
# WebKitGTK through its WebDriver on an Xvfb display.
FIREFOX   := /usr/bin/firefox-esr
WEBKIT    := /usr/bin/WebKitWebDriver
XVFB      := /usr/bin/Xvfb
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

.PHONY: serve test site model train export bench eval clean corpus lint screenshot

serve: site
	@echo "Serving the live page at http://127.0.0.1:$(PORT)/  (Ctrl-C to stop)"
	$(PY) site/serve.py --dir $(SITE) --port $(PORT) $(if $(CORS),--cors)

test: $(VENV) $(NODE) $(CHROMIUM) $(FIREFOX) $(WEBKIT) $(XVFB)
	$(PY) -m ruff check .
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

lint: $(VENV)
	$(PY) -m ruff check .

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

# Debian's packages for the browsers, each installed when its binary is missing.
APT_INSTALL = $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y

$(CHROMIUM):
	@echo "Installing Debian's chromium for the browser tests (about 90 s)..."
	$(APT_INSTALL) chromium

$(FIREFOX):
	@echo "Installing Debian's firefox-esr for the engine tests (about 40 s)..."
	$(APT_INSTALL) firefox-esr

$(WEBKIT) $(XVFB) &:
	@echo "Installing Debian's WebKitGTK driver and Xvfb for the engine tests (about 70 s)..."
	$(APT_INSTALL) webkit2gtk-driver xvfb xauth

clean:
	rm -rf $(SITE) build .pytest_cache

# The issue-7 targets for the shipped files: held-out bits per character beside gzip -9, xz and
# bzip2, the default view's weight and sentence-set agreement, and the best head scores.
eval: $(VENV)
	$(PY) -m train.evaluate --checkpoint $(CKPT) --corpus "$(CORPUS)" --meta static/model/meta.json
