# Plain entry points. `make demo` and `make test` are the README's two commands.
# `make demo` ends with `ora lint`, which exits 1 on the deliberate defects in _lint-defects/.
VENV    := .venv
PY      := $(VENV)/bin/python
ORA     := $(VENV)/bin/ora
VAULT   ?= examples/vault
QUERY   ?= how does spaced repetition help memory
DIST    ?= dist

.PHONY: setup python-setup plugin-setup models demo serve test lint typecheck clean dist version check-version

setup: python-setup plugin-setup models

python-setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	# torch is never needed; the cap file on this machine kind keeps pip off CUDA builds anyway.
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@

plugin-setup: node_modules/.installed main.js

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

main.js: node_modules/.installed $(shell find plugin/src -name '*.ts' 2>/dev/null)
	npm run build

# Builds the fp32 ONNX embedder from the packaged safetensors (no torch) and its int8
# quantisation (q8); skipped when up to date.
models: python-setup
	$(ORA) models build

demo: setup
	$(ORA) index $(VAULT)
	$(ORA) search $(VAULT) "$(QUERY)" --k 5
	$(ORA) contradictions $(VAULT) --scan
	$(ORA) lint $(VAULT) || true
	@echo
	@echo "Serve the plugin API with: $(ORA) serve $(VAULT)"

serve: setup
	$(ORA) serve $(VAULT)

test: setup
	$(PY) scripts/run_tests.py

lint: python-setup
	$(VENV)/bin/ruff check sidecar tests bench scripts
	$(VENV)/bin/mypy

# Release files in $(DIST): the sidecar's wheel and sdist (the wheel is built from the sdist,
# which proves the sdist complete) and the plugin's main.js, manifest.json, styles.css.
dist: python-setup plugin-setup check-version
	rm -rf $(DIST)
	$(PY) -m build --outdir $(DIST) .
	npm run build
	cp main.js manifest.json styles.css $(DIST)/
	@ls -l $(DIST)

# One version everywhere: `make version V=0.2.0` sets it, `make check-version` fails on drift.
version: python-setup
	@test -n "$(V)" || { echo "usage: make version V=MAJOR.MINOR.PATCH"; exit 2; }
	$(PY) scripts/version.py set $(V)

check-version: python-setup
	$(PY) scripts/version.py check

clean:
	rm -rf $(VENV) node_modules main.js dist $(VAULT)/.ora
