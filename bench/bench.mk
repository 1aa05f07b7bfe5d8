# hist-bench: `make bench` runs the comparison table, the read-out and the
# replay rows; `make bench-callgrind` counts instructions per event.
# Included by the top-level Makefile; paths are relative to the project.
# Needs the bench-only packages (the library itself needs none):
#   apt-get install -y liburcu-dev libck-dev trace-cmd valgrind
BENCH_BIN  := $(BUILD)/bench/hist-bench
BENCH_SRC  := $(wildcard bench/*.c)
BENCH_OBJ  := $(BENCH_SRC:%.c=$(BUILD)/%.o)
BENCH_LIBS := -lurcu-cds -lurcu -lck -lpthread
# Extra arguments for the run, e.g. BENCH_ARGS="-w u1k,2t_onekey -r 3".
BENCH_ARGS ?=

.PHONY: bench bench-callgrind bench-check-deps

bench-check-deps:
	@missing=""; \
	printf '#include <urcu/rculfhash.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing liburcu-dev"; \
	printf '#include <ck_ht.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing libck-dev"; \
	if [ -n "$$missing" ]; then \
		echo "bench: missing packages:$$missing"; \
		echo "bench: install them with: apt-get install -y liburcu-dev libck-dev trace-cmd valgrind"; \
		exit 1; \
	fi

$(BENCH_OBJ): | bench-check-deps

$(BENCH_BIN): $(BENCH_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(BENCH_LIBS)

# The replay row uses build/hist-replay when it builds, and says so if not.
bench: $(BENCH_BIN)
	@$(MAKE) --no-print-directory $(REPLAY) >/dev/null 2>&1 || \
		echo "bench: $(REPLAY) does not build; the replay row will be skipped"
	@command -v trace-cmd >/dev/null || echo "bench: trace-cmd not installed; no awk baseline"
	$(BENCH_BIN) $(BENCH_ARGS)

bench-callgrind: $(BENCH_BIN)
	@command -v valgrind >/dev/null || \
		{ echo "bench: valgrind missing (apt-get install -y valgrind)"; exit 1; }
	$(BENCH_BIN) --callgrind $(BENCH_ARGS)

# Soak test (not in make check): hist-live and histfs for SOAK_SECONDS (600)
# at a high event rate, histfs's triggers changed every second; checks flat
# RSS, events counted or reported lost, no instance left (bench/soak.sh;
# root and tracefs, else SKIP).
.PHONY: soak
# (histfs is defined after this file is included: built from the recipe)
soak: $(HIST_LIVE)
	$(if $(HISTFS),$(MAKE) BUILD=$(BUILD) $(HISTFS))
	BUILD=$(BUILD) sh bench/soak.sh

# Many hist triggers on one event (bench/triggers/triggers.c, not part of
# hist-bench): time and resident memory per trigger for 1k..8k triggers;
# linear growth shows as flat per-trigger columns.  Library only.
TRIG_BENCH := $(BUILD)/bench/hist-bench-triggers
TRIG_ARGS  ?=
.PHONY: bench-triggers
$(TRIG_BENCH): bench/triggers/triggers.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ -lpthread

bench-triggers: $(TRIG_BENCH)
	nice $(TRIG_BENCH) $(TRIG_ARGS)
