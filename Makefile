# EchoLab — the two commands a new machine needs: `make eval` and `make test`.
SWIFT ?= swift
# gcc and g++ build WebRTC's AEC3 library (scripts/build-aec3.sh) and the canceller plugins.
APT_PACKAGES := pkg-config libsndfile1-dev libsamplerate0-dev libspeexdsp-dev libfftw3-dev libwebrtc-audio-processing-dev \
	libabsl-dev gcc g++
# Only the tests need these: headless Chromium renders eval.html and report.html (BrowserRenderTests).
TEST_APT_PACKAGES := chromium espeak-ng
ECHOLAB := .build/release/echolab
# The release build links the Swift runtime and Foundation into the binary: resolving their
# symbols at every start takes ~8 ms (`echolab --version` starts in ~7 ms linked so, ~15 without).
RELEASE := -c release --static-swift-stdlib
VECTORS ?= vectors
REPORTS ?= reports
CORPUS ?= $(VECTORS)/scenarios
MODES ?= all
JOBS ?= 2

.PHONY: all deps test-deps build test test-build test-long eval determinism baseline bench vectors golden fuzz fuzz-smoke plugins scorers canceller-eval clean

all: build

## deps: install the Debian packages EchoLab links against, if any is missing, and build WebRTC's
##       AEC3 into libecholab_aec3.a (once per change of its sources; scripts/build-aec3.sh says why)
deps:
	@scripts/install-deps.sh $(APT_PACKAGES)
	@scripts/build-aec3.sh

## test-deps: install what the tests need besides the build (Chromium renders the HTML reports;
##            no test skips for want of it)
test-deps:
	@scripts/install-deps.sh $(TEST_APT_PACKAGES)

## build: release build of the echolab command
build: deps
	$(SWIFT) build $(RELEASE) --product echolab

## test: build and run every test but the long ones (a few minutes from a built tree).
##       The modules' DSP runs over seconds of audio in many tests, so the test build is optimised
##       (TEST_FLAGS); it stays a debug build otherwise: @testable imports and assertions work.
TEST_FLAGS ?= -Xswiftc -O
# Test classes whose names end in LongTests (and the EchoLabLongTests target): `make test-long`.
LONG_TESTS := LongTests[./]
# --parallel: a process per test, as many at once as there are cores (every test makes its own
# folders; none shares state with another), so the suite takes about half its serial time on 2 cores.
test: deps test-deps test-build
	$(SWIFT) test --skip-build --parallel --skip '$(LONG_TESTS)'

test-build:
	$(SWIFT) build --build-tests $(TEST_FLAGS)

## test-long: the long and corpus-wide checks — the hour-long call, the 10-minute drift calls,
##            golden taps, the default corpus in every mode, the example package, AECMOS against
##            speechmos itself (after `make scorers`) — with the
##            command run from the release build (CI runs this after `make test`)
test-long: build test-build scorers
	ECHOLAB_BINARY=$(ECHOLAB) $(SWIFT) test --skip-build --filter '$(LONG_TESTS)'

## eval: run a corpus (default: vectors/scenarios) in every AEC mode (MODES=all, or e.g. MODES=disabled,speex:intensityMax) into reports/,
##       without WAV taps (21 modes × 24 items would write about 4 GB; TAPS=1 writes them), then gate it: compare
##       reports/eval.json with the committed reports/baseline.json and fail when a run regressed by more than
##       MAX_REGRESSION_DB (or a fault counter rose, or an AECMOS score fell by more than MAX_REGRESSION_MOS: every
##       run is scored with --scorer aecmos where `make scorers` installed it; SCORERS= scores none). The default corpus × all modes is gated by default;
##       BASELINE=file gates any other run, BASELINE= skips the gate. `make baseline` re-blesses it (review the diff!).
TAPS ?=
MAX_REGRESSION_DB ?= 0.5
MAX_REGRESSION_MOS ?= 0.1
# The reference scorer scores every run where `make scorers` installed it (SCORERS= runs none).
SCORERS ?= $(if $(wildcard .build/scorers/bin/python3),aecmos,)
SCORER_FLAGS := $(foreach scorer,$(SCORERS),--scorer $(scorer))
DEFAULT_EVAL := $(and $(filter $(VECTORS)/scenarios,$(CORPUS)),$(filter all,$(MODES)))
BASELINE ?= $(if $(DEFAULT_EVAL),$(REPORTS)/baseline.json,)
# The default corpus's baseline in the repository, whatever REPORTS says.
COMMITTED_BASELINE := $(CURDIR)/reports/baseline.json
eval: build
	$(ECHOLAB) eval $(CORPUS) --modes $(MODES) --out $(REPORTS) --jobs $(JOBS) $(if $(TAPS),,--no-taps) $(SCORER_FLAGS)
	$(if $(BASELINE),$(ECHOLAB) compare $(BASELINE) $(REPORTS)/eval.json --max-regression-db $(MAX_REGRESSION_DB) --max-regression-mos $(MAX_REGRESSION_MOS) --markdown $(REPORTS)/compare.md)

## determinism: after `make eval` (JOBS=2 by default), run the same corpus and modes with --jobs 1 and require
##              the same eval.json, eval.md, eval.html and every run's report.json, report.md and report.html
##              byte for byte, wall-clock time aside: results must not depend on threads.
determinism: build
	@one=$$(mktemp -d) && \
	$(ECHOLAB) eval $(CORPUS) --modes $(MODES) --out $$one --jobs 1 --no-taps $(SCORER_FLAGS) > /dev/null && \
	differ=0; files=0; \
	for file in $$(cd $$one && find . -type f \( -name 'eval.*' -o -name 'report.*' \) | sort); do \
		files=$$((files + 1)); \
		if ! diff -q -I '"wall_s"\|"realtime_factor"\|s wall, .* real time' $$one/$$file $(REPORTS)/$$file > /dev/null 2>&1; then \
			differ=$$((differ + 1)); [ $$differ -le 5 ] && diff -I '"wall_s"\|"realtime_factor"\|s wall, .* real time' $$one/$$file $(REPORTS)/$$file | head -10; \
			echo "determinism: $$file differs between --jobs 1 and --jobs $(JOBS)"; \
		fi; \
	done; \
	if [ $$differ -eq 0 ] && [ $$files -gt 0 ]; then \
		echo "determinism: --jobs 1 gives the $$files reports in $(REPORTS) (--jobs $(JOBS)) byte for byte"; rm -rf $$one; \
	else \
		echo "determinism: $$differ of $$files reports differ between --jobs 1 and --jobs $(JOBS) (kept in $$one)"; exit 1; \
	fi

## baseline: run CORPUS in MODES (default: the default corpus × all modes) and make its eval.json the
##           baseline `make eval` gates on: reports/baseline.json (committed) for the default corpus; any
##           other corpus or modes need BASELINE=file and never overwrite the default corpus's baseline
baseline: build
	@if [ -z "$(BASELINE)" ]; then \
		echo "make baseline: CORPUS=$(CORPUS) MODES=$(MODES) is not the default corpus in every mode: name its baseline file with BASELINE=file ($(REPORTS)/baseline.json is the default corpus's)" >&2; exit 2; \
	fi
	@if [ -z "$(DEFAULT_EVAL)" ] && { [ "$$(realpath -m '$(BASELINE)')" = "$$(realpath -m '$(REPORTS)/baseline.json')" ] || \
		[ "$$(realpath -m '$(BASELINE)')" = "$$(realpath -m '$(COMMITTED_BASELINE)')" ]; }; then \
		echo "make baseline: $(BASELINE) is the default corpus's baseline: not overwritten with CORPUS=$(CORPUS) MODES=$(MODES); choose another BASELINE=file" >&2; exit 2; \
	fi
	$(ECHOLAB) eval $(CORPUS) --modes $(MODES) --out $(REPORTS) --jobs $(JOBS) --no-taps $(SCORER_FLAGS)
	cp $(REPORTS)/eval.json '$(BASELINE).partial' && mv '$(BASELINE).partial' '$(BASELINE)'

## plugins: build the example canceller plugin (Examples/Plugins/nlms.c) into .build/example-plugins/nlms.so (docs/plugins.md)
PLUGIN_HEADER := Sources/CEchoLabPluginHost/include
## canceller-eval: EchoLab's own canceller beside speex, webrtc and AEC3 on the development corpus
##                 (scripts/canceller-corpus.py: espeak-ng voices in synthetic rooms, a tune and a held-out
##                 set), PESQ-WB of the near end in double talk, into docs/canceller-results.md (a venv with
##                 pesq under .build/dev-venv; neither is needed to build or run EchoLab)
canceller-eval: build
	DOCS=docs/canceller-results.md scripts/canceller-eval.sh

plugins: .build/example-plugins/nlms.so
.build/example-plugins/nlms.so: Examples/Plugins/nlms.c $(PLUGIN_HEADER)/echolab_canceller.h
	@mkdir -p .build/example-plugins
	cc -shared -fPIC -O2 -Wall -I $(PLUGIN_HEADER) $< -o $@ -lm

## scorers: install the reference scorer's Python packages (scorers/requirements.txt: speechmos,
##          onnxruntime, librosa, pinned) into .build/scorers, for `--scorer aecmos`; never needed
##          to build or to run without it
scorers:
	@scripts/install-scorers.sh

## bench: speed and memory figures (release build, single thread; runs the echolab process too)
bench: deps
	$(SWIFT) build $(RELEASE) --product echolab
	$(SWIFT) build $(RELEASE) --product echolab-bench
	.build/release/echolab-bench

## fuzz: build the libFuzzer targets (Fuzz/, ASan) and run each for FUZZ_SECONDS (60) with the
##       seed corpus; exits non-zero on a crash (input in .build-fuzz/artifacts/TARGET/).
##       FUZZ_TARGETS="scenario audio" picks targets; FUZZ_FLAGS passes libFuzzer flags.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= scenario audio
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) scripts/fuzz.sh $(FUZZ_TARGETS)

## fuzz-smoke: the same for 10 s per target (CI)
fuzz-smoke: deps
	FUZZ_SECONDS=10 SWIFT=$(SWIFT) scripts/fuzz.sh $(FUZZ_TARGETS)

## vectors: regenerate the seeded input signals and scenarios in vectors/
vectors: build
	$(ECHOLAB) vectors generate --vectors $(VECTORS)

## golden: re-measure vectors/golden.json after an intended change (review the diff!)
golden: build
	$(ECHOLAB) vectors bless --vectors $(VECTORS)

clean:
	rm -rf .build .build-fuzz $(REPORTS)/*/ $(REPORTS)/eval.*
