# fuzz/fuzz.mk: fuzz targets for AFL++, their seed corpora, and the coverage
# report.  Included by the top Makefile.
#
#   make fuzz-build        build every target with afl-clang-fast + ASan/UBSan
#   make fuzz              an AFL++ campaign per target, FUZZ_SECONDS each,
#                          FUZZ_JOBS at a time; fails on any crash or hang
#   make fuzz-cmin         shrink each corpus with afl-cmin (after a campaign,
#                          merges the campaign's queue into fuzz/corpus/)
#   make fuzz-seeds        regenerate the seed-* files from the test data
#   make coverage          gcovr line + branch report of src/ and of the tools
#                          from `make check`, each against its floor
#
# The corpus replay (every fuzz/corpus file through its target) is
# test/test_corpus.c, part of `make check`.

FUZZ_TARGETS := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 2
FUZZ_OUT     ?= $(FUZZ_BUILD)/out
AFL_CC       ?= afl-clang-fast
FUZZ_SAN     ?= -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_BINS     = $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
COV_BUILD    ?= build-cov

.PHONY: fuzz fuzz-build fuzz-bins fuzz-cmin fuzz-seeds fuzz-clean coverage

fuzz-build:
	AFL_QUIET=1 $(MAKE) BUILD=$(FUZZ_BUILD) CC=$(AFL_CC) OPT="-O2 -g" \
		SAN="$(FUZZ_SAN)" fuzz-bins

fuzz-bins: $(FUZZ_BINS)

.PRECIOUS: $(BUILD)/fuzz/%.o

# -fsanitize=fuzzer makes afl-clang-fast link its libFuzzer-style driver
# (persistent mode, shared-memory input).
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/fuzz_%.o $(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(FTRACE_LIB) $(LIB) \
		$(FTRACE_LIBS) -lpthread

# The tools' targets link the code of the tool they fuzz (args.c and the
# like are included by the target itself).
FUZZ_REPLAY_OBJ := $(addprefix $(BUILD)/examples/hist-replay/,replay.o markers.o comm.o perf.o \
	syscalls_x86_64.o)
$(BUILD)/fuzz/fuzz_replay_args: $(FUZZ_REPLAY_OBJ) $(TOOL_COMMON_OBJ)
$(BUILD)/fuzz/fuzz_live_args $(BUILD)/test/test_corpus: $(TOOL_COMMON_OBJ)

# fuzz_listen (and the corpus replay that includes it) runs the tools'
# /metrics server: libmicrohttpd's header where pkg-config finds it
# (MHD_CFLAGS of the top Makefile); listen.c opens the library itself
$(BUILD)/fuzz/fuzz_listen.o $(BUILD)/test/test_corpus.o: CFLAGS += $(MHD_CFLAGS)
$(BUILD)/fuzz/fuzz_listen $(BUILD)/test/test_corpus: FTRACE_LIBS += -ldl

fuzz: fuzz-build
	FUZZ_BIN=$(FUZZ_BUILD)/fuzz FUZZ_OUT=$(FUZZ_OUT) FUZZ_SECONDS=$(FUZZ_SECONDS) \
		FUZZ_JOBS=$(FUZZ_JOBS) sh fuzz/run.sh $(FUZZ_TARGETS)

fuzz-cmin: fuzz-build
	FUZZ_BIN=$(FUZZ_BUILD)/fuzz FUZZ_OUT=$(FUZZ_OUT) sh fuzz/cmin.sh $(FUZZ_TARGETS)

$(BUILD)/fuzz/mkseeds: $(BUILD)/fuzz/mkseeds.o $(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FTRACE_LIBS) -lpthread

fuzz-seeds: $(BUILD)/fuzz/mkseeds
	$(BUILD)/fuzz/mkseeds

fuzz-clean:
	rm -rf $(FUZZ_BUILD) $(COV_BUILD)

clean: fuzz-clean

# Coverage of src/ by `make check` (unit tests, conformance, corpus replay),
# and separately of the tools (examples/: hist-replay, hist-live, the
# malloc tracer, histfs), each against its floor: CI fails when a change
# lowers one (set a little under the last measured figures, which
# fuzz/README.md keeps).
#
# Branches are gcc's (-O0 --coverage), as gcovr counts them: every edge
# of every condition (`a && b` is four).  The specialised hit path
# (src/core/variants.c, with the inline readers of src/core/rd.h and
# src/map/map_inline.h) copies the same few source conditions into every
# variant cell, and gcc counts each copy's edges on the shared source line:
# 10,434 of the library's 18,713 edges, most constant within a cell.  So
# the library's branch floor is checked twice: over every edge
# (COV_BRANCHES), and over the library without those three files
# (COV_SRC_BRANCHES: each source branch counted once, 88.2% on 26 Nov,
# 89.2% after test_core's additions; the issue's "89.1%" fits this count), the three files keeping their line
# figure.  gcovr --decisions (if/while/?: both ways, each switch case) is
# printed too, as a cross-check.
COV_LINES         ?= 94
COV_BRANCHES      ?= 59
COV_SRC_BRANCHES  ?= 89
COV_TOOL_LINES    ?= 76
COV_TOOL_BRANCHES ?= 64
COV_SPECIALISED   := -e src/core/variants.c -e src/core/rd.h -e src/map/map_inline.h

coverage:
	rm -rf $(COV_BUILD)
	-$(MAKE) BUILD=$(COV_BUILD) CC=gcc OPT="-O0 -g" SAN="--coverage -fprofile-update=atomic" check
	gcovr -r . -f src/ --object-directory $(COV_BUILD) \
		--html-details $(COV_BUILD)/coverage.html \
		--txt $(COV_BUILD)/coverage.txt $(COV_BUILD) >/dev/null
	gcovr -r . -f src/ --branches --object-directory $(COV_BUILD) \
		--txt $(COV_BUILD)/branches.txt $(COV_BUILD) >/dev/null
	gcovr -r . -f examples/ --object-directory $(COV_BUILD) \
		--txt $(COV_BUILD)/tools.txt $(COV_BUILD) >/dev/null
	@echo "== library (src/): floor $(COV_LINES)% lines, $(COV_BRANCHES)% branches"
	gcovr -r . -f src/ --object-directory $(COV_BUILD) --print-summary \
		--fail-under-line $(COV_LINES) --fail-under-branch $(COV_BRANCHES) \
		-o /dev/null $(COV_BUILD)
	@echo "== library without the specialised hit path: floor $(COV_SRC_BRANCHES)% branches"
	gcovr -r . -f src/ $(COV_SPECIALISED) --object-directory $(COV_BUILD) --print-summary \
		--fail-under-branch $(COV_SRC_BRANCHES) -o /dev/null $(COV_BUILD)
	@echo "== library, decisions (gcovr --decisions; no floor)"
	gcovr -r . -f src/ --decisions --object-directory $(COV_BUILD) \
		--json $(COV_BUILD)/decisions.json $(COV_BUILD)
	python3 fuzz/decisions.py $(COV_BUILD)/decisions.json
	@echo "== tools (examples/): floor $(COV_TOOL_LINES)% lines, $(COV_TOOL_BRANCHES)% branches"
	gcovr -r . -f examples/ --object-directory $(COV_BUILD) --print-summary \
		--fail-under-line $(COV_TOOL_LINES) --fail-under-branch $(COV_TOOL_BRANCHES) \
		-o /dev/null $(COV_BUILD)
	@echo "per-file reports: $(COV_BUILD)/coverage.txt (lines)," \
		"$(COV_BUILD)/branches.txt (branches), $(COV_BUILD)/tools.txt," \
		"$(COV_BUILD)/coverage.html"
