# Entry points. Each target bootstraps what it needs, and only that: a fresh clone needs only
# python3, node/npm and (for the browser tests) Debian's chromium, firefox-esr and WebKitGTK
# driver under Xvfb, which `make test` installs when they are missing. `make serve` installs the
# `site` dependency group (jinja2) and the browser runtime files alone; `make model`/`train`/
# `export`/`eval` add the `train` group, `make test` the rest.

PY        := .venv/bin/python
# One venv, one marker per installed dependency group (pyproject.toml [dependency-groups]).
PIP_READY := .venv/.pip-groups
GROUP      = .venv/.group-$(1)
NODE      := node_modules/.installed
RUNTIME   := node_modules/.runtime
CHROMIUM  := /usr/bin/chromium
# The other engines the suite drives (tests/drivers): Firefox ESR through puppeteer-core, and
# WebKitGTK through its WebDriver on an Xvfb display.
FIREFOX   := /usr/bin/firefox-esr
WEBKIT    := /usr/bin/WebKitWebDriver
XVFB      := /usr/bin/Xvfb
# The team's copy of the training texts when it is there, else what `make corpus` downloads.
CORPUS_DIR ?= $(if $(wildcard ../shared/corpus/alice.txt),../shared/corpus,corpus)
DEFAULT_CORPUS := $(CORPUS_DIR)/alice.txt
# A model knows its own text: with NAME= given and models/NAME/meta.json there, CORPUS,
# COMPANIONS and DESCRIPTION default to what it records (`make eval NAME=x` refuses a CORPUS=
# that is not the recorded text; `make model NAME=x CORPUS=other.txt` trains a new model x).
RECORD     = $(if $(filter command line environment,$(origin NAME)),$(if $(filter command line environment,$(origin CORPUS)),,$(wildcard models/$(NAME)/meta.json)))
recorded   = $(shell python3 -c 'import json, sys; v = json.load(open(sys.argv[1], encoding="utf-8")); \
	v = [v := v.get(k) or {} for k in sys.argv[2].split(".")][-1]; print(" ".join(v) if isinstance(v, list) else v or "")' $(RECORD) $(1))
CORPUS    ?= $(if $(RECORD),$(call recorded,train_args.corpus),$(DEFAULT_CORPUS))
is_default = $(filter $(DEFAULT_CORPUS),$(CORPUS))
# The companions and the description belong to the default corpus; your own text has none unless given.
COMPANIONS ?= $(if $(RECORD),$(call recorded,train_args.companions),$(if $(is_default),$(CORPUS_DIR)/companions))
# A retrain is a model of its own: models/NAME.pt and models/NAME/ (git-ignored), named after
# its corpus by default. Nothing replaces the shipped model (static/model/ and SHIPPED_CKPT)
# but `make ship NAME=...`.
NAME      ?= $(basename $(notdir $(CORPUS)))
CKPT      ?= models/$(NAME).pt
MODEL_OUT ?= models/$(NAME)
# The shipped model's checkpoint keeps the name of the text the first shipped model read: the
# tests and the re-export check read it, and renaming it would gain nothing but churn.
SHIPPED_CKPT := checkpoints/alice.pt
# The model folder `make site`/`make serve` build the site on (MODEL=models/NAME: your own).
MODEL     ?= static/model
PORT      ?= 8000
# The built site: a folder of its own (setuptools writes build/ on `pip install .`).
SITE      := _site
DEFAULT_DESCRIPTION := Alice's Adventures in Wonderland by Lewis Carroll (Project Gutenberg \#11), last 10% held out; eleven companion books train only
DESCRIPTION ?= $(if $(RECORD),$(call recorded,corpus.description),$(if $(is_default),$(DEFAULT_DESCRIPTION)))
# The recipe to train, by name: a file in train/recipes/ (NAME.toml). `shipped` is the shipped
# model's (docs/experiments.md, run M4: the induction curriculum, one thread, ~15 minutes);
# RECIPE=plain (or RECIPE=) trains the plain text-only model of the trainer's defaults (~5
# minutes, no circuit). The checkpoint and meta.json record the name.
RECIPE    ?= shipped
# STEPS=N trains N steps with the recipe fitted to them: its snapshots and its warm-up's start
# scale with N, its 300-step warm-up stays whole and needs N >= 600; below that N steps of the
# plain recipe (RECIPE=plain). The run says which before it starts (train/recipe.py has the rule).
STEPS     ?=
# Training flags beyond the texts and the recipe (they win over it), e.g. TRAIN_FLAGS="--seed 3".
TRAIN_FLAGS ?=
TRAIN_ARGS = --corpus "$(CORPUS)" $(if $(COMPANIONS),--companions $(COMPANIONS)) --out $(CKPT) \
	--recipe "$(RECIPE)" $(if $(STEPS),--fit-steps $(STEPS)) $(TRAIN_FLAGS)
# The default view is chosen at export from what the model does; VIEW_FLAGS="--text ... --layer 2
# --head 3" pins it. Heads carry no order: HEAD_ORDER="2:3,1,2,4" renumbers layer 2's at export.
VIEW_FLAGS ?=
HEAD_ORDER ?=
SUDO      := $(if $(filter 0,$(shell id -u)),,sudo)
# The project's own books are never committed, so a model of the default corpus searches its heads'
# example sentences in the sample text export/probe_text.txt; your own text's model, in its held-out part.
EXPORT_FLAGS = --corpus "$(CORPUS)" --out $(MODEL_OUT) $(if $(DESCRIPTION),--corpus-description "$(DESCRIPTION)") $(VIEW_FLAGS) \
	$(if $(HEAD_ORDER),--head-order "$(HEAD_ORDER)") $(if $(is_default),--examples-from sample)

.PHONY: serve test site model train export ship bench eval clean corpus lint screenshot wheel schema check-host

# The build's .br/.gz copies go to browsers that take them; COMPRESS=0 sends every file as it is
# (what a host that does not compress sends: try `make check-host` against both).
serve: site
	@echo "Serving the live page at http://127.0.0.1:$(PORT)/  (Ctrl-C to stop)"
	$(PY) -m site_builder.serve --dir $(SITE) --port $(PORT) $(if $(CORS),--cors) $(if $(filter 0,$(COMPRESS)),--no-compress)

# What a deployed copy of the site sends for its key files (bytes, encodings, types, CORS, caching),
# with one line of advice per problem: make check-host URL=https://you.github.io/course/
# (site_builder/check_host.py, standard library only; docs/hosting.md).
check-host:
	python3 -m site_builder.check_host $(if $(URL),"$(URL)")

test: $(call GROUP,test) $(NODE) $(CHROMIUM) $(FIREFOX) $(WEBKIT) $(XVFB) lint
	$(PY) -m pytest

site: $(call GROUP,site) $(RUNTIME)
	$(PY) -m site_builder.build --out $(SITE) --model $(MODEL)

# Train tokenizer + model on CORPUS + COMPANIONS and export models/NAME/. Everything training and
# export will need is checked first (train --check also prints the recipe and the time the run
# will take at its steps and threads), so a bad flag or path costs seconds, not a run. The
# training bar's run_left is the whole run's time left, export included; export has a bar of its own.
model: $(call GROUP,train)
	@echo "make model: tokenizer, training and export into $(MODEL_OUT)/"
	$(PY) -m train --check $(TRAIN_ARGS)
	$(PY) -m export --check $(EXPORT_FLAGS) -- $$($(PY) -m train.recipe_files "$(RECIPE)") $(TRAIN_FLAGS)
	$(MAKE) train export

# Download the training texts from Project Gutenberg into corpus/ (git-ignored), for anyone
# without ../shared/corpus. Offline it stops with one clear error.
corpus: $(call GROUP,train)
	$(PY) -m train.download --out corpus

train: $(call GROUP,train)
	OMP_WAIT_POLICY=PASSIVE $(PY) -m train $(TRAIN_ARGS)

export: $(call GROUP,train)
	$(PY) -m export --checkpoint $(CKPT) $(EXPORT_FLAGS)

# Replace the shipped model with models/NAME/ (and its checkpoint): the one step that does. The
# folder is checked against its meta.json, copied beside static/model/, checked again and swapped
# in whole (export/ship.py): an incomplete folder or a Ctrl-C leaves the shipped model as it was.
ship:
	$(PY) -m export.ship --model $(MODEL_OUT) --checkpoint $(CKPT) --to static/model --checkpoint-to $(SHIPPED_CKPT)
	$(PY) -m site_builder.doc_numbers
	@echo "shipped $(NAME): static/model/, $(SHIPPED_CKPT) and the figures in README.md and docs/model.md replaced; rebuild with make site, commit them"

# Every `file.ext name` pointer in comments and docs resolves (tools/check_pointers.py), ruff
# for the Python, and TypeScript's checker over the widget's JavaScript (tsconfig.json:
# JSDoc types, no build step; the shipped files are the checked ones).
lint: $(call GROUP,test) $(NODE)
	$(PY) tools/check_pointers.py
	$(PY) -m ruff check .
	node_modules/.bin/tsc --noEmit -p tsconfig.json

# The widget's state keys for the Python side (site_builder/build.py and model_card.py) and its State
# typedef, written from its schema (static/attention-view/state.js: core's keys and every
# feature's); tests/test_state_schema.py checks both are current. Then what meta.json's schema
# (attention_live/meta.schema.json) writes: the widget's required fields and Meta typedef and the
# field table of docs/model-files.md (tests/test_meta_schema.py checks them).
SCHEMA_JSON := static/attention-view/state-schema.json
STATE_TYPE := static/attention-view/state-type.js
schema: $(NODE)
	node site_builder/state_schema.mjs > $(SCHEMA_JSON).tmp && mv $(SCHEMA_JSON).tmp $(SCHEMA_JSON)
	node site_builder/state_schema.mjs --typedef > $(STATE_TYPE).tmp && mv $(STATE_TYPE).tmp $(STATE_TYPE)
	python3 tools/meta_schema_outputs.py

# Then Lighthouse (pinned in bench/lighthouse.py, fetched by npx) on index.html and embed.html,
# mobile and desktop, three runs each, as make serve serves them.
bench: site $(CHROMIUM)
	$(PY) -m bench.run
	$(PY) -m bench.slow_link
	$(PY) -m bench.lighthouse

# docs/screenshot.png (shown at the top of the README) from a fresh build in headless Chromium.
screenshot: $(call GROUP,test) $(NODE) $(CHROMIUM)
	$(PY) -m bench.screenshot

# pip >= 25.1 installs a PEP 735 dependency group without installing the project.
$(PIP_READY):
	python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade 'pip>=25.1'
	touch $@

# `site` needs jinja2 and brotli alone; the other groups run the model too, so they bring the package's own
# dependencies (onnxruntime, tokenizers, numpy: pyproject.toml [project]) with an editable install.
.venv/.group-site: pyproject.toml | $(PIP_READY)
	$(PY) -m pip install --quiet --group site
	touch $@

.venv/.group-%: pyproject.toml | $(PIP_READY)
	$(PY) -m pip install --quiet -e . --group $*
	touch $@

# What the tests need: every package, development files included.
$(NODE): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# What the site needs: only the runtime files build.py copies (a full install has them too).
$(RUNTIME): package-lock.json | $(call GROUP,site)
	@if [ -f $(NODE) ]; then touch $@; else $(PY) -m site_builder.runtime_files; fi

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

# dist/attention_live-*.whl: the package with the model, the widget's bundle and its runtime
# files copied in (wheel_builder/build_wheel.py). `pip install dist/attention_live-*.whl` needs nothing else.
# Building it needs only what it zips: the `wheel` group (jinja2, setuptools) and the runtime files
# with esbuild's binary ($(RUNTIME)); build_wheel.py fetches the bundle's few other npm files.
wheel: $(call GROUP,wheel) $(RUNTIME)
	$(PY) -m wheel_builder.build_wheel --out dist

# Like `site`, no editable install: the wheel's build needs none of the package's dependencies.
.venv/.group-wheel: pyproject.toml | $(PIP_READY)
	$(PY) -m pip install --quiet --group wheel
	touch $@

clean:
	rm -rf $(SITE) build dist .pytest_cache

# A model's targets: held-out bits per character beside gzip -9, xz and bzip2, the default view's
# weight and story, and the best head scores. `make eval` is the shipped model; NAME=... a retrain.
# The text scored is the one the model's meta.json records; a CORPUS= given must be that text.
NAMED      = $(filter command line environment,$(origin NAME))
EVAL_CKPT  = $(if $(NAMED),$(CKPT),$(SHIPPED_CKPT))
EVAL_MODEL = $(if $(NAMED),$(MODEL_OUT),static/model)
# The shipped model's record names ../shared/corpus/; a fresh clone has the same text in corpus/.
EVAL_CORPUS = $(if $(filter command line environment,$(origin CORPUS)),$(CORPUS),$(if $(NAMED),,$(DEFAULT_CORPUS)))
eval: $(call GROUP,train)
	$(PY) -m train.evaluate --checkpoint $(EVAL_CKPT) --meta $(EVAL_MODEL)/meta.json $(if $(EVAL_CORPUS),--corpus "$(EVAL_CORPUS)")
