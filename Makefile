# Two commands matter (see README): `make serve` and `make test`. Everything else is a step of those.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
# pip on these machines warns about every configured local index it cannot read; hide only those lines.
QUIET_PIP := 2>&1 | { grep -v "^WARNING: Location .* is ignored" || true; }
PY := .venv/bin/python
# Zensical, the second site generator, in a venv of its own (requirements-zensical.txt; make build-zensical).
ZPY := .venv-zensical/bin/python
ZENSICAL_SITE := build/zensical/site
export PYTHONPATH := $(CURDIR)
export NO_MKDOCS_2_WARNING := 1
PORT ?= 8000
# A tier builds what it tests, unless `make test` has prepared it all first (PREPARED=1).
SITE = $(if $(PREPARED),,build)
FIXTURE_SITE = $(if $(PREPARED),,fixture-site)
ZENSICAL = $(if $(PREPARED),,build-zensical)
# Where `make setup` links the `ol` command (README: "Working locally with ol").
BINDIR ?= $(HOME)/.local/bin

.PHONY: setup setup-python setup-node setup-browser setup-engines test-engines build bundle serve serve-isolated test test-unit test-js \
        test-content test-pyodide test-e2e validate suite-times bench clean new preview fixture-site link-ol

setup: setup-python setup-node ## Python venv, npm packages, Pyodide assets (no browser)
	$(PY) -m tools.pyodide_assets .cache/pyodide-check >/dev/null

setup-python: .venv/.installed
.venv/.installed: requirements.txt pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt $(QUIET_PIP)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e . $(QUIET_PIP)
	@$(MAKE) --no-print-directory link-ol
	touch $@

# `ol` goes into $(BINDIR) only when nothing is there or it already is this checkout's; otherwise say so.
link-ol:
	@target="$(CURDIR)/.venv/bin/ol"; link="$(BINDIR)/ol"; \
	if [ ! -e "$$link" ] && [ ! -L "$$link" ]; then \
	  mkdir -p "$(BINDIR)" && ln -s "$$target" "$$link" && echo "linked $$link -> $$target"; \
	elif [ "$$(readlink -f "$$link")" = "$$(readlink -f "$$target")" ]; then :; \
	else echo "note: $$link exists and is not this checkout's ol ($$(readlink "$$link" || echo 'a file')); left alone."; \
	  echo "      to use this one: ln -sf $$target $$link   (or: . .venv/bin/activate)"; fi
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "note: $(BINDIR) is not on your PATH; add it, or run . .venv/bin/activate, to use ol";; esac

setup-node: node_modules/.package-lock.json
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

setup-browser: ## Debian's chromium, for the end-to-end tests
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi; }
	@chromium --version

# Firefox ESR (driven over WebDriver BiDi, which it speaks itself) and WebKitGTK (its WebDriver and MiniBrowser, on
# a virtual display), from Debian, for the engine matrix; no browser is downloaded.
ENGINE_PACKAGES := firefox-esr webkit2gtk-driver xvfb
setup-engines: setup-browser ## Debian's firefox-esr, webkit2gtk-driver and xvfb, for the engine matrix
	@command -v firefox-esr >/dev/null && command -v WebKitWebDriver >/dev/null && command -v Xvfb >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $(ENGINE_PACKAGES) >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq $(ENGINE_PACKAGES) >/dev/null; fi; }
	@firefox-esr --version 2>/dev/null; dpkg-query -W -f='WebKitGTK $${Version}\n' webkit2gtk-driver

bundle: setup-node
	node web/build.mjs

build: setup bundle ## the site, into site/ (validates every exercise first)
	$(PY) -m mkdocs build --strict

serve: build ## build, then serve on http://127.0.0.1:$(PORT)/
	$(PY) -m authoring.serve --port $(PORT)

serve-isolated: build ## same, with cross-origin isolation headers (Stop interrupts instead of restarting)
	$(PY) -m authoring.serve --port $(PORT) --isolate

validate: setup-python ## every exercise and page: reference passes (5 runs), starter fails, mutants caught, prompts agree
	$(PY) -m authoring validate $(EX) --cache $(if $(EX),--gate-first)

preview: setup bundle ## live preview on http://127.0.0.1:$(PORT)/: rebuilds on every change, shows build errors
	$(PY) -m authoring.preview --port $(PORT)

# make new ID=E7.4 KIND=lesson TITLE="Acceptance rate" [CHAPTER=E7] [REQUIRES="M07.6 M07.1"] [MILESTONE=MS-P6]
new: setup-python ## scaffold a lesson or module: page, exercise folder, nav entry (AUTHORING.md)
	$(PY) -m authoring.scaffold --id "$(ID)" --kind "$(KIND)" --title "$(TITLE)" --chapter "$(CHAPTER)" --requires "$(REQUIRES)" \
	  --milestone "$(MILESTONE)"

fixture-site: setup bundle ## the platform's fixture course (tests/fixtures/course) into build/fixture-site
	$(PY) -m mkdocs build --strict -f tests/fixtures/course/mkdocs.yml

suite-times: build ## how long each hidden suite takes in Pyodide, as learners wait for it (EX="m07-6 ...")
	node tools/suite_times.mjs $(EX)

# The unit tier in WORKERS processes (pytest-xdist; 0: in pytest's own process), one per core: its tests are
# Python's own work, with no browser whose timing a loaded machine changes (bench/README.md says what it saves).
WORKERS ?= 2
test-unit: setup-python setup-node
	$(PY) -m pytest -q -n $(WORKERS) tests/unit

test-js: setup-node
	node --test web/test/

# The course's content, checked from its manifests at a small cost per exercise: validation (the build's, cached by
# content), the diagnosis's leave-one-out and the starters, the pages of the site (tests/content).
test-content: $(SITE) ## the course's content: validation, the diagnosis on the course, every page's static checks
	$(PY) -m pytest -q tests/content

test-pyodide: $(SITE) ## the same validation inside Pyodide under Node.js; outcomes must equal CPython's
	$(PY) -m pytest -q tests/pyodide

# In E2E_WORKERS browsers side by side (pytest-xdist: each worker takes tests from a share of its own, then from
# the other's), then the tests marked `alone` (the service worker's timing) with no other browser running;
# E2E_WORKERS=0 runs the first part in one process too.
E2E_WORKERS ?= 2
test-e2e: $(SITE) $(FIXTURE_SITE) setup-browser ## real headless Chromium against the built site on localhost
	$(PY) -m pytest -q -n $(E2E_WORKERS) --dist worksteal tests/e2e --ignore=tests/e2e/test_engines.py -m "not alone"
	$(PY) -m pytest -q tests/e2e --ignore=tests/e2e/test_engines.py -m alone

# The learner journeys that can differ by engine, in Firefox ESR and WebKitGTK (the full suite above is Chromium's;
# ENGINES=chromium,firefox,webkit runs them in all three). A journey whose browser stopped answering (a timeout,
# never a wrong verdict or a page error) is run once more, and pytest says so. One browser at a time: two side by
# side took 99 s once and 201 s the next time, a WebKit journey timing out and run again (121 s one at a time).
test-engines: $(SITE) $(FIXTURE_SITE) setup-engines ## the engine matrix: the journeys in Firefox and WebKit
	TL_ENGINES=$(or $(ENGINES),firefox$(COMMA)webkit) $(PY) -m pytest -q tests/e2e/test_engines.py \
	  --reruns 1 --only-rerun "TimeoutError|EngineError"
COMMA := ,

.PHONY: setup-zensical build-zensical test-e2e-zensical
setup-zensical: .venv-zensical/.installed
.venv-zensical/.installed: requirements-zensical.txt
	test -x $(ZPY) || python3 -m venv .venv-zensical
	$(ZPY) -m pip install --quiet --disable-pip-version-check -r requirements-zensical.txt $(QUIET_PIP)
	touch $@

# The same steps as `make build`'s hook, around Zensical instead of MkDocs (tools/zensical_build.py says why each).
build-zensical: setup bundle setup-zensical ## the site built by Zensical (pinned), into build/zensical/site
	$(PY) -m authoring validate --cache
	$(ZPY) -m tools.zensical_build
	$(PY) -m tools.site_steps post-build $(ZENSICAL_SITE) --config mkdocs.yml

# The end-to-end tests of the real course's pages and accessibility, on Zensical's output, for a sample of its
# exercises (TL_SAMPLE: one of each kind, tests/e2e/test_content.py) and one page of each kind for axe. What only
# the page's script and the bundles decide (a reference passing, a mutant failing) is the same file under either
# generator, so it runs once, in test-e2e. Axe's dark audit comes with each page's light one, on the same load.
test-e2e-zensical: $(ZENSICAL) setup-browser ## those end-to-end tests against build/zensical/site
	TL_SITE=$(ZENSICAL_SITE) TL_SAMPLE=1 $(PY) -m pytest -q -n $(E2E_WORKERS) tests/e2e/test_zensical.py \
	  tests/e2e/test_content.py tests/e2e/test_a11y.py::test_axe_finds_nothing_serious \
	  tests/e2e/test_a11y.py::test_phone_width -k "not course_check"

# Every tier in turn, each timed (build/tier-times.tsv, printed at the end): first everything the tiers need (set-up,
# the sites, the browsers), then the platform's tiers and the content's. bench/README.md, "The cost of a course",
# says what each tier costs per exercise.
TIERS := test-unit test-js test-content test-pyodide test-e2e test-engines test-e2e-zensical
test: ## everything CI runs
	@mkdir -p build; printf 'tier\tseconds\n' > build/tier-times.tsv
	@for tier in prepare $(TIERS); do start=$$(date +%s); \
	  $(MAKE) --no-print-directory $$tier PREPARED=$$([ $$tier = prepare ] || echo 1) || { echo "make test: $$tier failed"; exit 1; }; \
	  printf '%s\t%s\n' $$tier $$(( $$(date +%s) - start )) >> build/tier-times.tsv; done
	@column -t build/tier-times.tsv
	@echo "all tests passed"

.PHONY: prepare test-content
# The site's build (validation on every core) runs beside the installs that wait on the disk and the network
# (Debian's browsers, Zensical's venv); the two other builds come after it, since they share its caches (validation,
# snapshot) and would otherwise validate the same exercises a second time.
prepare: ## what the tiers need: the sites, both generators, browsers
	@$(MAKE) --no-print-directory -j2 --output-sync=target build setup-engines setup-zensical
	@$(MAKE) --no-print-directory fixture-site build-zensical

# make bench ENGINE=firefox|webkit|phone [SITE=dir LABEL=name]: start-up and the first Check in that engine (bench/engines.py)
# instead; SITE and LABEL measure another build and keep its row under that name.
bench: build setup-browser ## start-up and run-time benchmark, then the same over emulated networks (bench/README.md)
ifeq ($(ENGINE),)
	$(PY) -m bench.run
	$(PY) -m bench.network
	$(PY) -m bench.pages
else
	@$(MAKE) --no-print-directory setup-engines
	$(PY) -m bench.engines --engine $(ENGINE) $(if $(RUNS),--runs $(RUNS)) $(if $(SITE),--site $(SITE)) $(if $(LABEL),--label "$(LABEL)")
endif

bench-network: build setup-browser ## start-up over emulated networks, plain and compressing server ([RUNS=N])
	$(PY) -m bench.network $(if $(RUNS),--runs $(RUNS))

# Lighthouse's phone audit of each kind of page, the site served compressed ([RUNS=N] [BEFORE=dir of another site/])
bench-pages: build setup-browser
	$(PY) -m bench.pages $(if $(RUNS),--runs $(RUNS)) $(if $(BEFORE),--before "$(BEFORE)")

.PHONY: bench-course bench-network bench-pages bench-versions diagnosis-report
diagnosis-report: validate ## the diagnosis measured: leave-one-out and the corpus (bench/results/diagnosis-latest.md)
	@mkdir -p bench/results
	$(PY) -m authoring.corpus --diagnose | tee bench/results/diagnosis-latest.md
bench-versions: build setup-browser ## an earlier build against this one, side by side (BEFORE=dir of its site/)
	$(PY) -m bench.versions --before "$(BEFORE)" $(if $(RUNS),--runs $(RUNS))

# First a fresh clone's `make test` on the generated course (bench/course_test.py: each tier's wall time), then the
# author's figures (bench/course.py: builds, validation, the preview's edit loop, sizes).
bench-course: setup bundle ## course-scale benchmark on a generated course of 100 exercises ([COUNT=N]; bench/README.md)
	$(PY) -m bench.course_test $(if $(COUNT),--count $(COUNT))
	$(PY) -m bench.course $(if $(COUNT),--count $(COUNT))

clean:
	rm -rf site build .cache
