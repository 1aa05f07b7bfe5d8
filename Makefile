# libhist build.  `make` builds the libraries and the tools, `make check`
# runs every test and ends with "N passed, N failed".
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
SAN     ?=
CFLAGS_BASE := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wno-unused-parameter -fvisibility=hidden -D_DEFAULT_SOURCE -D_GNU_SOURCE \
	-Iinclude -Isrc
CFLAGS  ?=
ALL_CFLAGS = $(CFLAGS_BASE) $(OPT) $(SAN) $(CFLAGS)
LDFLAGS ?=
ALL_LDFLAGS = $(SAN) $(LDFLAGS)

# The core: every module folder under src/ except the ftrace adapter.
CORE_DIRS := core map schema parse expr filter actions synth output
CORE_SRC  := $(foreach d,$(CORE_DIRS),$(wildcard src/$(d)/*.c))
CORE_OBJ  := $(CORE_SRC:%.c=$(BUILD)/%.o)
# The ftrace adapter: a host of the core (format files, pages, trace.dat).
FTRACE_SRC := $(wildcard src/ftrace/*.c)
FTRACE_OBJ := $(FTRACE_SRC:%.c=$(BUILD)/%.o)
FTRACE_LIBS := -lzstd

LIB        := $(BUILD)/libhist.a
FTRACE_LIB := $(BUILD)/libhist-ftrace.a

TEST_SRC   := $(wildcard test/test_*.c)
TEST_BIN   := $(TEST_SRC:test/%.c=$(BUILD)/test/%)
TEST_COMMON_SRC := $(filter-out $(TEST_SRC),$(wildcard test/*.c))
TEST_COMMON_OBJ := $(TEST_COMMON_SRC:%.c=$(BUILD)/%.o)

REPLAY_SRC := $(wildcard examples/hist-replay/*.c)
REPLAY     := $(BUILD)/hist-replay
EXAMPLE_SRC := $(wildcard examples/*.c)
EXAMPLE_BIN := $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)

.PHONY: all check check-asan check-tsan demo clean header-check
# keep objects of tests and examples (they are intermediate files)
.SECONDARY:

all: $(LIB) $(FTRACE_LIB) $(EXAMPLE_BIN) $(if $(REPLAY_SRC),$(REPLAY))

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(FTRACE_LIB): $(FTRACE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/test/%: $(BUILD)/test/%.o $(TEST_COMMON_OBJ) $(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FTRACE_LIBS) -lpthread

$(BUILD)/examples/%: $(BUILD)/examples/%.o $(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FTRACE_LIBS) -lpthread

$(REPLAY): $(REPLAY_SRC:%.c=$(BUILD)/%.o) $(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FTRACE_LIBS)

CXX ?= c++
# The public headers must compile as C11 and as C++ on their own.
header-check:
	@for h in include/*.h; do \
		$(CC) -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c $$h || exit 1; \
		$(CXX) -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ $$h || exit 1; \
	done

check: all header-check $(TEST_BIN)
	@sh test/run-tests.sh $(BUILD) $(TEST_BIN)

check-asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" check

check-tsan:
	$(MAKE) BUILD=build-tsan OPT="-O1 -g" SAN="-fsanitize=thread" \
		TSAN_ONLY=1 check

# The README's first command: system calls per process and per system call
# name, from a real recording of a compile/find/tar/python workload.
demo: all
	$(REPLAY) \
	  -t 'raw_syscalls/sys_enter hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending' \
	  -t 'raw_syscalls/sys_enter hist:keys=id.syscall:vals=hitcount:sort=hitcount.descending' \
	  test/data/syscalls.v7-zstd.dat

clean:
	rm -rf build build-asan build-tsan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Fragments owned by their folders (benchmarks, fuzzing).
-include bench/bench.mk
-include fuzz/fuzz.mk
