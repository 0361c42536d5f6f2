# Entry points. Each target bootstraps what it needs: a fresh clone needs only python3, node/npm
# and (for the browser tests) Debian's chromium, which `make test` installs when it is missing.

PY        := .venv/bin/python
VENV      := .venv/.installed
NODE      := node_modules/.installed
CHROMIUM  := /usr/bin/chromium
CORPUS    ?= ../shared/corpus/alice.txt
CKPT      ?= checkpoints/alice.pt
PORT      ?= 8000
DESCRIPTION ?= Alice's Adventures in Wonderland by Lewis Carroll (Project Gutenberg \#11), public domain
SUDO      := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: serve test site model train export bench eval clean

serve: site
	@echo "Serving the live page at http://127.0.0.1:$(PORT)/  (Ctrl-C to stop)"
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory build

test: $(VENV) $(NODE) $(CHROMIUM)
	$(PY) -m pytest

site: $(VENV) $(NODE)
	$(PY) site/build.py --out build

# Retrain tokenizer + model on CORPUS and re-export static/model/ (about 3 minutes on 2 cores).
model: train export

train: $(VENV)
	$(PY) -m train --corpus "$(CORPUS)" --out $(CKPT)

export: $(VENV)
	$(PY) -m export --checkpoint $(CKPT) --out static/model --corpus-description "$(DESCRIPTION)"

bench: site $(CHROMIUM)
	$(PY) bench/run.py

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
	rm -rf build .pytest_cache

# Held-out bits per character of the shipped checkpoint next to gzip -9, xz and bzip2.
eval: $(VENV)
	$(PY) -m train.evaluate --checkpoint $(CKPT) --corpus "$(CORPUS)"
