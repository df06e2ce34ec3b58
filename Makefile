# attend - a terminal course in transformer attention.
#   make            build ./attend (never runs it)
#   make run        install missing Debian packages, build, run the course
#   make check      the fast tests (unit, house rules, check-lessons, headless reference), < 60 s:
#                   run it after every change
#   make test       install what the tests need, build, run every test (two suites at a time)
#   make test-long  the long end-to-end walks (CI runs them after make test)
#   make debug      the unit suites against a debug build (ATTEND_ASSERT on)
#   make sanitize   every test (unit, reference, end-to-end) against an ASan + UBSan build
#   make fuzz       libFuzzer harnesses (clang), FUZZ_SECONDS each (default 60)
#   make soak       20,000 random keys and resizes through tmux, memory sampled
#   make crashtest  200 kill -9 during page changes: the progress file never corrupt or lost
#   make bench      speed and memory benchmarks
#   make models     retrain the shipped models from the corpus
#   make install    install under PREFIX (/usr/local) into DESTDIR; make uninstall undoes it
#   make deb        build the Debian package into build/deb/ (from a copy of the tree)
CC      ?= cc
PKGS    := ncursesw libcjson libpcre2-8
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CJSON_CFLAGS := $(shell pkg-config --cflags libcjson 2>/dev/null)
CJSON_LIBS   := $(shell pkg-config --libs libcjson 2>/dev/null)
# The engine's libraries (cJSON, and PCRE2 for the Hugging Face tokenizers' patterns): what
# unit tests and fuzz harnesses link beside the core.
CORE_CFLAGS := $(shell pkg-config --cflags libcjson libpcre2-8 2>/dev/null)
CORE_LIBS   := $(shell pkg-config --libs libcjson libpcre2-8 2>/dev/null)
WARN    := -Wall -Wextra -Wpedantic -Wshadow
ifeq ($(WERROR),1)
WARN    += -Werror
endif
OPT     ?= -O2 -g
CFLAGS  ?=
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) $(WARN) $(CPPFLAGS) $(CFLAGS)
LDLIBS  := -lm

BUILD   ?= build
# The rooms (docs/architecture.md). Each room is compiled seeing only its own headers and
# those of the rooms below it, so an include against the layering fails to build:
#   engine  <-  course  <-  session  <-  tui  <-  cli (main and the subcommands)
ENGINE_SRC := $(wildcard src/engine/*.c)
COURSE_SRC := $(wildcard src/course/*.c)
SESSION_SRC := $(wildcard src/session/*.c)
TUI_SRC    := $(wildcard src/tui/*.c)
CLI_SRC    := $(filter-out src/cli/main.c,$(wildcard src/cli/*.c))
INC_engine := -Isrc/engine
INC_course := -Isrc/course -Isrc/engine
INC_session := -Isrc/session -Isrc/course -Isrc/engine
INC_tui    := -Isrc/tui -Isrc/session -Isrc/course -Isrc/engine
INC_cli    := -Isrc/cli -Isrc/tui -Isrc/session -Isrc/course -Isrc/engine
ENGINE_OBJ := $(ENGINE_SRC:src/%.c=$(BUILD)/%.o)
COURSE_OBJ := $(COURSE_SRC:src/%.c=$(BUILD)/%.o)
SESSION_OBJ := $(SESSION_SRC:src/%.c=$(BUILD)/%.o)
TUI_OBJ    := $(TUI_SRC:src/%.c=$(BUILD)/%.o)
CLI_OBJ    := $(CLI_SRC:src/%.c=$(BUILD)/%.o)
# Terminal-free objects: what unit tests link (no curses): the engine, the course and the
# session room below both front ends (the Session, the key table, the text helpers, opts).
CORE_OBJ := $(ENGINE_OBJ) $(COURSE_OBJ)
TUI_FREE_OBJ := $(SESSION_OBJ)
MAIN_OBJ := $(BUILD)/cli/main.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC := $(wildcard tools/*.c)
TOOL_BIN := $(TOOL_SRC:tools/%.c=$(BUILD)/tools/%)

.PHONY: all run deps test-deps test test-long check unit debug sanitize bench models clean check-pkgs fuzz fuzz-build \
        soak crashtest install uninstall deb FORCE
BIN     ?= attend
all: check-pkgs $(BIN)

check-pkgs:
	@pkg-config --exists $(PKGS) 2>/dev/null || { \
	  echo "attend needs ncursesw, libcjson and libpcre2-8 (found with pkg-config)."; \
	  echo "Run 'make deps' to install them, or: sudo apt-get install -y pkg-config libncurses-dev libcjson-dev libpcre2-dev"; \
	  exit 1; }

$(BIN): $(MAIN_OBJ) $(CLI_OBJ) $(TUI_OBJ) $(SESSION_OBJ) $(CORE_OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS) $(LDFLAGS)

# One pattern rule per room: the include path is the room's layering. Each object's header
# dependencies are tracked (-MMD -MP: build/x/y.d beside build/x/y.o), so touching a header
# rebuilds only what includes it; an object without its .d file is rebuilt (DEP_FILES).
DEPFLAGS = -MMD -MP
$(BUILD)/engine/%.o: src/engine/%.c $(BUILD)/engine/%.d
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(INC_engine) $(CORE_CFLAGS) -c -o $@ $<
$(BUILD)/course/%.o: src/course/%.c $(BUILD)/course/%.d
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(INC_course) $(CJSON_CFLAGS) -c -o $@ $<
$(BUILD)/session/%.o: src/session/%.c $(BUILD)/session/%.d
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(INC_session) -D_XOPEN_SOURCE=700 -c -o $@ $<
$(BUILD)/tui/%.o: src/tui/%.c $(BUILD)/tui/%.d
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(INC_tui) $(PKG_CFLAGS) -c -o $@ $<
$(BUILD)/cli/%.o: src/cli/%.c $(BUILD)/cli/%.d
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(INC_cli) $(PKG_CFLAGS) -c -o $@ $<
# (Named targets, not a pattern: make treats a missing pattern-made .d as an intermediate
# file and would not rebuild the object for it.)
DEP_FILES := $(patsubst %.o,%.d,$(MAIN_OBJ) $(CLI_OBJ) $(TUI_OBJ) $(SESSION_OBJ) $(CORE_OBJ))
$(DEP_FILES):
# The matmul kernel may fuse a*b+c into one FMA (see src/engine/tensor_matmul.c).
$(BUILD)/engine/tensor_matmul.o: ALL_CFLAGS += -ffp-contract=fast
# Unit tests link the core and the tui's curses-free objects only: no curses, no terminal
# (a test that needed curses would not link). A test's or tool's own .c is compiled once into
# build/tests/obj/ (build/tools/obj/), its headers tracked in the .d beside the .o; a change
# below it then only relinks (a link is ~0.1 s of CPU, the compile ~1 s: make check after a
# change in the engine relinked about 45 binaries, ~20 s of CPU, before this).
$(BUILD)/tests/obj/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP $(INC_session) $(CJSON_CFLAGS) -Itests/unit -c -o $@ $<
$(BUILD)/tests/%: $(BUILD)/tests/obj/%.o $(CORE_OBJ) $(TUI_FREE_OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.o,$^) $(CORE_LIBS) $(LDLIBS)
$(BUILD)/tools/obj/%.o: tools/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP $(INC_cli) $(PKG_CFLAGS) -c -o $@ $<
$(BUILD)/tools/%: $(BUILD)/tools/obj/%.o $(CORE_OBJ) $(CLI_OBJ) $(TUI_OBJ) $(SESSION_OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(CLI_OBJ) $(TUI_OBJ) $(SESSION_OBJ) $(CORE_OBJ) $(PKG_LIBS) $(LDLIBS)
# (the objects are kept: make would delete them as intermediates)
.SECONDARY: $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/obj/%.o) $(TOOL_SRC:tools/%.c=$(BUILD)/tools/obj/%.o)
-include $(wildcard $(BUILD)/tests/obj/*.d $(BUILD)/tools/obj/*.d)
-include $(wildcard $(BUILD)/*/*.d)

deps:
	@tools/deps.sh run
test-deps:
	@tools/deps.sh test

run: deps
	@$(MAKE) --no-print-directory attend
	./attend

unit: check-pkgs $(UNIT_BIN) $(BIN) $(TOOL_BIN)

# Two suites at a time (JOBS=N for more); each prints its line as it ends, then the total.
test: test-deps
	@$(MAKE) --no-print-directory unit
	@tests/run_all.sh
test-long: test-deps
	@$(MAKE) --no-print-directory unit
	@tests/run_all.sh --long

# The command to run after every change (README, docs/architecture.md): the build with warnings
# as errors, then the unit suites, tests/ref/house.py, check-lessons and the headless reference
# tests not marked "# suite: slow", three at a time (suites wait on child processes: python
# starting, the learner's lab code compiling; a third keeps both cores busy: 48-70 s against
# 61-87 s for two, measured in turn); under a minute on two idle cores.
check: check-pkgs
	@$(MAKE) --no-print-directory -j2 WERROR=1 unit
	@JOBS=$${JOBS:-3} tests/run_all.sh --check

# The unit suites against a debug build: -DATTEND_DEBUG turns on ATTEND_ASSERT (attend_assert.h),
# the shape, bounds and aliasing checks of the tensor kernels and the player's state checks,
# which the release build compiles out; then check-lessons, whose walk drives the player's
# state through every page and key. CI runs it; make sanitize builds the same way.
DEBUG_DEF := -DATTEND_DEBUG
debug: check-pkgs
	@$(MAKE) --no-print-directory -j2 BUILD=build-debug BIN=build-debug/attend \
	  OPT="-O1 -g $(DEBUG_DEF)" unit
	@BUILD=build-debug ATTEND=build-debug/attend tests/run_all.sh --quick unit/
	@build-debug/attend check-lessons >/dev/null && echo "check-lessons with asserts on: 0 problems"

# float-cast-overflow is not part of GCC's "undefined": named so that a double converted to
# an int out of range (issue 11) is caught.
# Under ASan the engine is built without its target_clones and AVX kernels (__SANITIZE_ADDRESS__):
# the portable code, without FMA, so its numbers differ from a release build's in the last digits.
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow
sanitize: check-pkgs
	@$(MAKE) --no-print-directory BUILD=build-san BIN=build-san/attend OPT="-O1 -g -fno-omit-frame-pointer $(SAN_FLAGS) -fno-sanitize-recover=all $(DEBUG_DEF)" \
	  LDFLAGS="$(SAN_FLAGS)" unit
	@BUILD=build-san ATTEND=build-san/attend SANITIZE=1 \
	  SAN_OPT="-O1 -g -fno-omit-frame-pointer $(SAN_FLAGS) -fno-sanitize-recover=all $(DEBUG_DEF)" \
	  SAN_LDFLAGS="$(SAN_FLAGS)" tests/run_all.sh

bench: check-pkgs attend $(TOOL_BIN)
	@bench/run.sh

# The natural WordNet vocabulary (docs/model-format.md), the shipped one: SCOWL's most common
# English words, British spellings and names kept whole besides WordNet's own frequent words,
# and SCOWL's next levels' words where the corpus has them as often as its own kept words
# (Debian's scowl; docs/data.md); an inflected word reads as its stem plus a piece; numbers
# whole or their digits; a byte inside a word marked. WORDNET_VOCAB= (empty) writes the greedy
# vocabulary of before (a model trained on it needs that vocabulary back).
SCOWL    := /usr/share/dict/scowl
EVERYDAY := $(addprefix --everyday $(SCOWL)/,english-words.10 british-words.10 british-words.20 \
              british-words.35 british-abbreviations.35 english-upper.10 english-upper.35 \
              english-upper.40)
COMMON   := $(addprefix --common $(SCOWL)/,english-words.20 english-words.35 english-upper.50 \
              english-abbreviations.10 english-abbreviations.20 english-abbreviations.35 \
              english-abbreviations.40 english-abbreviations.50)
NATURAL  := --natural $(EVERYDAY) $(COMMON)
WORDNET_VOCAB ?= $(NATURAL)
# Regenerates the corpora (deterministic) and retrains the shipped models (docs/training.md);
# the real-English corpus needs Debian's wordnet-base (and scowl for $(NATURAL); docs/data.md), then
# docs/model-report.md is measured on the new files. Prints its wall and CPU time at the end.
REPORT_MODELS := data/wordnet.json:data/corpus/wordnet-test.txt:data/corpus/wordnet.txt \
  data/decoder.json:data/corpus/english-test.txt:data/corpus/english.txt \
  data/decoder-cheat.json:data/corpus/english-test.txt:data/corpus/english.txt \
  data/encoder.json:data/corpus/english-test.txt data/translate.json:data/corpus/parallel-test.txt
models: check-pkgs $(BIN) $(BUILD)/tools/gencorpus $(BUILD)/tools/wordnet_corpus $(BUILD)/tools/model_report
	@bash -c 'TIMEFORMAT="make models: %Rs wall, %Us user + %Ss system CPU"; time { set -ex; \
	  $(BUILD)/tools/gencorpus --seed 1 --out data/corpus --vocab data/vocab.txt; \
	  $(BUILD)/tools/wordnet_corpus --out data/corpus --vocab data/vocab-wordnet.txt --not-in data/everyday.txt \
	    $(WORDNET_VOCAB); \
	  ./$(BIN) train --config data/configs/decoder.json --out data/decoder.json; \
	  ./$(BIN) train --config data/configs/decoder-cheat.json --out data/decoder-cheat.json; \
	  ./$(BIN) train --config data/configs/translate.json --out data/translate.json; \
	  ./$(BIN) train --config data/configs/encoder.json --out data/encoder.json; \
	  ./$(BIN) train --config data/configs/induction.json --out data/induction.json; \
	  ./$(BIN) train --config data/configs/induction-1layer.json --out data/induction-1layer.json; \
	  ./$(BIN) train --config data/configs/wordnet.json --out data/wordnet.json; \
	  $(BUILD)/tools/model_report $(REPORT_MODELS) >docs/model-report.md.tmp; \
	  mv docs/model-report.md.tmp docs/model-report.md; }'

# ---- install (README "Install"); the version lives in VERSION only ----
VERSION := $(shell cat VERSION)
PREFIX  ?= /usr/local
DATADIR  = $(PREFIX)/share/attend
SRCDIR   = $(CURDIR)
# The data directory and the build tree are compiled into datapath.o only (rebuilt when they
# change); SRCDIR= leaves the build path out (the Debian package).
$(BUILD)/course/datapath.o: ALL_CFLAGS += -DATTEND_DATADIR='"$(DATADIR)"' -DATTEND_SRCDIR='"$(SRCDIR)"'
$(BUILD)/course/datapath.o: $(BUILD)/datapath.flags
$(BUILD)/cli/main.o: ALL_CFLAGS += -DATTEND_VERSION='"$(VERSION)"'
$(BUILD)/cli/main.o: VERSION
$(BUILD)/datapath.flags: FORCE
	@mkdir -p $(@D); f='$(DATADIR) $(SRCDIR)'; [ "$$(cat $@ 2>/dev/null)" = "$$f" ] || echo "$$f" >$@
SHARE_FILES := $(sort $(shell find lessons data demos -type f ! -name '.*' \
                 ! -path 'data/corpus/wordnet*' 2>/dev/null))
DOC_FILES   := README.md $(wildcard docs/*.md)
INST_BIN  = $(DESTDIR)$(PREFIX)/bin/attend
INST_MAN  = $(DESTDIR)$(PREFIX)/share/man/man1/attend.1
INST_COMP = $(DESTDIR)$(PREFIX)/share/bash-completion/completions/attend
INST_DOC  = $(DESTDIR)$(PREFIX)/share/doc/attend
install: all
	install -D -m 755 $(BIN) $(INST_BIN)
	install -D -m 644 docs/attend.1 $(INST_MAN)
	install -D -m 644 tools/attend.bash-completion $(INST_COMP)
	install -d $(INST_DOC) && install -m 644 $(DOC_FILES) $(INST_DOC)
	@for f in $(SHARE_FILES); do install -D -m 644 $$f $(DESTDIR)$(DATADIR)/$$f || exit 1; done
	@echo "installed $(words $(SHARE_FILES)) data files in $(DESTDIR)$(DATADIR)"
# Removes exactly what install wrote, then every directory install may have made (under
# share/attend, and bin, share/man/man1, share/bash-completion/completions, share/doc/attend
# and their parents below PREFIX) when it is empty: a directory holding anything stays.
INST_DIRS = $(DESTDIR)$(DATADIR) $(INST_DOC) $(dir $(INST_MAN)) $(dir $(INST_COMP)) \
	$(DESTDIR)$(PREFIX)/share/doc $(DESTDIR)$(PREFIX)/share/man \
	$(DESTDIR)$(PREFIX)/share/bash-completion $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share
uninstall:
	rm -f $(INST_BIN) $(INST_MAN) $(INST_COMP) $(addprefix $(INST_DOC)/,$(notdir $(DOC_FILES)))
	@cd $(DESTDIR)$(DATADIR) 2>/dev/null && rm -f $(SHARE_FILES) && \
	  for d in $$(printf '%s\n' $(sort $(dir $(SHARE_FILES))) | sort -r); do rmdir -p $$d 2>/dev/null; done; \
	  for d in $(INST_DIRS); do rmdir $$d 2>/dev/null; done; true
# Builds from a copy under build/deb/src of the files git shows (committed or not, never the
# ignored ones): dpkg-buildpackage writes into the parent directory, build/deb/.
DEB_FILES = { git ls-files -co --exclude-standard 2>/dev/null || \
	  find . \( -path './build*' -o -path ./attend -o -path ./.git \) -prune -o -type f -print; }
# The build dependencies first (debian/control's Build-Depends), installed or named as
# ./setup.sh does: never dpkg's raw "Unmet build dependencies: debhelper-compat (= 13)".
deb:
	@tools/deps.sh deb
	rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/src
	$(DEB_FILES) | while read -r f; do [ -f "$$f" ] && echo "$$f"; done | tar -cf - -T - | tar -C $(BUILD)/deb/src -xf -
	cd $(BUILD)/deb/src && dpkg-buildpackage -us -uc -b -J2
	@ls $(BUILD)/deb/*.deb

# ---- fuzzing (docs/security.md): libFuzzer harnesses in tests/fuzz, built with clang and
# ASan + UBSan, each run FUZZ_SECONDS from its seed corpus tests/fuzz/corpus/NAME (new inputs
# go to build-fuzz/corpus/NAME; crashes to build-fuzz/crash-NAME-*). CI runs a short budget
# through tests/ref/fuzz_short.sh; `make fuzz FUZZ_SECONDS=3600` is the long run.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_NAMES   := model lesson progress tokenizer quiz_answer lab_result safetensors hf_tokenizer hf_pretok demo subword
FUZZ_SAN     := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
FUZZ_BIN     := $(FUZZ_NAMES:%=build-fuzz/fuzz_%)
fuzz-build: check-pkgs
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs clang and its libFuzzer runtime: apt-get install -y clang libclang-rt-dev"; exit 1; }
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) \
	  OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)" fuzz-bins
fuzz-bins: $(FUZZ_BIN)
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(CORE_OBJ)
	$(CC) $(ALL_CFLAGS) $(INC_course) $(CJSON_CFLAGS) -fsanitize=fuzzer $(FUZZ_WRAP_$*) -o $@ $< \
	  $(CORE_OBJ) $(CORE_LIBS) $(LDLIBS)
# the lesson harness shares models loaded once (see tests/fuzz/fuzz_lesson.c)
FUZZ_WRAP_lesson := -Wl,--wrap=model_load,--wrap=model_free
# the demo/lecture-plan harness checks key names with the tui's curses-free key table
FUZZ_WRAP_demo := -Isrc/session build-fuzz/session/keys.o build-fuzz/session/keys_help.o build-fuzz/session/ui_text.o
build-fuzz/fuzz_demo: build-fuzz/session/keys.o build-fuzz/session/keys_help.o build-fuzz/session/ui_text.o
# tokenizer.json's normalizers and pre-tokenizers: every input within 2 s and 512 MB (the
# tokenizer's limits per sentence make each cheap; tests/fuzz/fuzz_hf_pretok.c)
FUZZ_LIMITS_hf_pretok := -timeout=2 -rss_limit_mb=512 -malloc_limit_mb=256
fuzz: fuzz-build
	@for n in $(FUZZ_NAMES); do \
	  mkdir -p build-fuzz/corpus/$$n; \
	  echo "fuzz_$$n: $(FUZZ_SECONDS) s"; \
	  lim="-timeout=10 -rss_limit_mb=2048"; \
	  [ $$n = hf_pretok ] && lim="$(FUZZ_LIMITS_hf_pretok)"; \
	  build-fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) $$lim \
	    -max_len=8192 -print_final_stats=0 -artifact_prefix=build-fuzz/crash-$$n- \
	    build-fuzz/corpus/$$n tests/fuzz/corpus/$$n 2>build-fuzz/fuzz_$$n.log \
	    || { tail -n 40 build-fuzz/fuzz_$$n.log; echo "fuzz_$$n FAILED (inputs: build-fuzz/crash-$$n-*)"; exit 1; }; \
	  grep -E "^Done [0-9]+ runs" build-fuzz/fuzz_$$n.log | tail -n 1; \
	done

# ---- long-running robustness runs (tests/e2e/soak.bash, tests/e2e/crashtest.bash); CI runs
# short versions through tests/e2e/test_robust.sh.
SOAK_KEYS     ?= 20000
CRASH_KILLS   ?= 200
soak: check-pkgs $(BIN)
	@SOAK_KEYS=$(SOAK_KEYS) bash tests/e2e/soak.bash
crashtest: check-pkgs $(BIN)
	@CRASH_KILLS=$(CRASH_KILLS) bash tests/e2e/crashtest.bash

clean:
	rm -rf build build-san build-debug build-fuzz attend
