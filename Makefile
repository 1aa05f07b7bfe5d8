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
CORE_DIRS := common map schema filter expr core synth actions parse output api
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

# hint.o: the replay engine that test/conf_replay.c compiles in calls it
$(BUILD)/test/%: $(BUILD)/test/%.o $(TEST_COMMON_OBJ) $(BUILD)/examples/common/hint.o \
		$(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FTRACE_LIBS) -lpthread

# test_live checks hist-live's reading of kernel filters directly
$(BUILD)/test/test_live: $(BUILD)/examples/hist-live/tracefs.o

$(BUILD)/examples/%: $(BUILD)/examples/%.o $(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FTRACE_LIBS) -lpthread

# --listen (examples/listen/): libmicrohttpd where pkg-config finds it, for
# its header: the tools open the library only when they serve (listen.c)
MHD_LIBS   := $(shell pkg-config --libs libmicrohttpd 2>/dev/null)
LISTEN_OBJ := $(BUILD)/examples/listen/listen.o
MHD_CFLAGS := $(if $(MHD_LIBS),-DHIST_HAVE_MHD $(shell pkg-config --cflags libmicrohttpd))
$(LISTEN_OBJ): CFLAGS += $(MHD_CFLAGS)
# examples/common/: the tools' shared sources (the command-file reader, the JSON text)
TOOL_COMMON_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard examples/common/*.c))
$(REPLAY): $(REPLAY_SRC:%.c=$(BUILD)/%.o) $(LISTEN_OBJ) $(TOOL_COMMON_OBJ) $(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FTRACE_LIBS) -ldl -lpthread

CXX ?= c++
# The public headers must compile as C11 and as C++ on their own.
header-check:
	@for h in include/*.h; do \
		$(CC) -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c $$h || exit 1; \
		$(CXX) -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ $$h || exit 1; \
	done

# test/layers.sh: the one-way order of src/'s modules (README "Architecture")
check: all header-check freestanding $(TEST_BIN)
	@HIST_CC='$(CC)' HIST_SAN='$(SAN)' HIST_BUILD='$(BUILD)' sh test/run-tests.sh \
		$(BUILD) $(TEST_BIN) test/layers.sh

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

# ---- Shared libraries, the example hosts, man pages, install -----------
# libhist.so and libhist-ftrace.so are linked from a second, position-
# independent object tree (BUILD/pic) in which only the functions of the
# public headers are visible (src/pkg/export.h) and the version scripts name
# every exported symbol; src/pkg/abi-check.sh fails the build when a header
# and its script disagree, or when a library exports anything else.
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR      ?=
INSTALL      ?= install

version_of = $(shell sed -n 's/^\#define LIBHIST_VERSION_$(1) *//p' include/libhist.h)
VERSION_MAJOR := $(call version_of,MAJOR)
VERSION := $(VERSION_MAJOR).$(call version_of,MINOR).$(call version_of,PATCH)
SOVERSION := $(VERSION_MAJOR)

comma := ,
PIC_DIR := $(BUILD)/pic
PIC_CFLAGS = $(ALL_CFLAGS) -fPIC -include src/pkg/export.h
CORE_PIC_OBJ := $(CORE_SRC:%.c=$(PIC_DIR)/%.o)
FTRACE_PIC_OBJ := $(FTRACE_SRC:%.c=$(PIC_DIR)/%.o)
# sanitizer runtimes are not linked into shared objects: allow their
# undefined symbols there
SHLIB_LDFLAGS = $(if $(SAN),,-Wl$(comma)--no-undefined)

SHLIB        := $(BUILD)/libhist.so.$(VERSION)
FTRACE_SHLIB := $(BUILD)/libhist-ftrace.so.$(VERSION)
PUBLIC_HEADERS := include/libhist.h include/hist_synth.h include/hist_ftrace.h

# The example hosts: the live kernel shim and the userspace malloc tracer
# (an LD_PRELOAD library and a workload to try it on).
HIST_LIVE_SRC := $(wildcard examples/hist-live/*.c)
HIST_LIVE     := $(BUILD)/hist-live
MTRACE_DIR    := $(BUILD)/examples/malloc-trace
MTRACE_LIB    := $(MTRACE_DIR)/libhist-malloc.so
MTRACE_DEMO   := $(MTRACE_DIR)/malloc-demo
TOOLS         := $(REPLAY) $(HIST_LIVE)

MAN1 := $(wildcard examples/*/*.1)
MAN3 := $(wildcard include/man/*.3)
# every function listed in a page's NAME section gets a ".so" page of its
# own (include/man/links.sh)
MAN3_LINKS = sh include/man/links.sh $(MAN3)

.PHONY: install uninstall shared

all: shared $(HIST_LIVE) $(MTRACE_LIB) $(MTRACE_DEMO)
shared: $(SHLIB) $(FTRACE_SHLIB)

$(PIC_DIR)/%.o: %.c src/pkg/export.h
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/abi/libhist.ok: src/pkg/libhist.map include/libhist.h include/hist_synth.h \
		src/pkg/abi-check.sh
	sh src/pkg/abi-check.sh headers "$(CC)" src/pkg/libhist.map include/libhist.h \
		include/hist_synth.h
	@mkdir -p $(dir $@) && touch $@

$(BUILD)/abi/libhist-ftrace.ok: src/pkg/libhist-ftrace.map include/hist_ftrace.h \
		src/pkg/abi-check.sh
	sh src/pkg/abi-check.sh headers "$(CC)" src/pkg/libhist-ftrace.map include/hist_ftrace.h
	@mkdir -p $(dir $@) && touch $@

# $(call link_shlib,NAME,MAP,LIBS): link $@ from the objects in $^
define link_shlib
	$(CC) -shared $(ALL_LDFLAGS) $(SHLIB_LDFLAGS) -Wl,-soname,$(1).so.$(SOVERSION) \
		-Wl,--version-script=$(2) -o $@ $(filter %.o,$^) $(3)
	sh src/pkg/abi-check.sh exports $@ $(2)
	ln -sf $(1).so.$(VERSION) $(BUILD)/$(1).so.$(SOVERSION)
	ln -sf $(1).so.$(SOVERSION) $(BUILD)/$(1).so
endef

$(SHLIB): $(CORE_PIC_OBJ) src/pkg/libhist.map $(BUILD)/abi/libhist.ok
	$(call link_shlib,libhist,src/pkg/libhist.map,)

$(FTRACE_SHLIB): $(FTRACE_PIC_OBJ) src/pkg/libhist-ftrace.map $(BUILD)/abi/libhist-ftrace.ok
	$(call link_shlib,libhist-ftrace,src/pkg/libhist-ftrace.map,$(FTRACE_LIBS) -lpthread)

# hist-live uses hist-replay's table of x86_64 system call names
$(HIST_LIVE): $(HIST_LIVE_SRC:%.c=$(BUILD)/%.o) $(LISTEN_OBJ) $(TOOL_COMMON_OBJ) \
		$(BUILD)/examples/hist-replay/syscalls_x86_64.o $(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FTRACE_LIBS) -ldl -lpthread

# the tracer carries its own copy of the core and exports only the
# allocator entry points it wraps
$(MTRACE_LIB): $(PIC_DIR)/examples/malloc-trace/preload.o $(PIC_DIR)/examples/malloc-trace/triggers.o \
		$(PIC_DIR)/examples/common/json.o $(CORE_PIC_OBJ) \
		examples/malloc-trace/preload.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(ALL_LDFLAGS) -Wl,--version-script=examples/malloc-trace/preload.map \
		-o $@ $(filter %.o,$^) -lpthread

$(MTRACE_DEMO): $(BUILD)/examples/malloc-trace/malloc-demo.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

# PC_SUBST turns libhist*.pc.in into the installed .pc files
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
PC_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(call pc_dir,$(LIBDIR))|g' \
	-e 's|@INCLUDEDIR@|$(call pc_dir,$(INCLUDEDIR))|g' -e 's|@VERSION@|$(VERSION)|g'

install: all
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	$(INSTALL) -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)
	$(INSTALL) -m 644 $(LIB) $(FTRACE_LIB) $(DESTDIR)$(LIBDIR)
	$(INSTALL) -m 755 $(SHLIB) $(FTRACE_SHLIB) $(DESTDIR)$(LIBDIR)
	for l in libhist libhist-ftrace; do \
		ln -sf $$l.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$$l.so.$(SOVERSION) && \
		ln -sf $$l.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/$$l.so || exit 1; \
		$(PC_SUBST) src/pkg/$$l.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/$$l.pc || exit 1; \
	done
	$(INSTALL) -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3
	$(MAN3_LINKS) | while read -r name page; do \
		echo ".so man3/$$page.3" > $(DESTDIR)$(MANDIR)/man3/$$name.3 || exit 1; \
	done

uninstall:
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(PUBLIC_HEADERS)))
	for l in libhist libhist-ftrace; do \
		rm -f $(DESTDIR)$(LIBDIR)/$$l.a $(DESTDIR)$(LIBDIR)/$$l.so \
		      $(DESTDIR)$(LIBDIR)/$$l.so.$(SOVERSION) \
		      $(DESTDIR)$(LIBDIR)/$$l.so.$(VERSION) \
		      $(DESTDIR)$(PKGCONFIGDIR)/$$l.pc; \
	done
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3)))
	$(MAN3_LINKS) | while read -r name page; do \
		rm -f $(DESTDIR)$(MANDIR)/man3/$$name.3; \
	done

# Fragments owned by their folders (benchmarks, fuzzing).
-include bench/bench.mk
-include fuzz/fuzz.mk
-include examples/freestanding/freestanding.mk

# histfs: tracefs with the hist-trigger files, over FUSE (libfuse3: the
# tool's own dependency; built only where pkg-config finds fuse3).  It
# links hist-live's tracefs, ring-buffer and host parts.
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE_LIBS   := $(shell pkg-config --libs fuse3 2>/dev/null)
HISTFS_SRC  := $(wildcard examples/histfs/*.c)
HISTFS      := $(if $(FUSE_LIBS),$(BUILD)/histfs)
HISTFS_LIVE_OBJ := $(addprefix $(BUILD)/examples/hist-live/,tracefs.o ring.o host.o comms.o) \
	$(BUILD)/examples/hist-replay/syscalls_x86_64.o
all: $(HISTFS)
TOOLS += $(HISTFS)
$(BUILD)/examples/histfs/%.o: examples/histfs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUSE_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/histfs: $(HISTFS_SRC:%.c=$(BUILD)/%.o) $(HISTFS_LIVE_OBJ) $(FTRACE_LIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(FTRACE_LIBS) $(FUSE_LIBS) -lpthread

# hist-merge: the JSON of several runs merged into one hist file
# (libhist's hist_merge_*; the tool only reads the JSON back)
HIST_MERGE := $(BUILD)/hist-merge
all: $(HIST_MERGE)
TOOLS += $(HIST_MERGE)
$(HIST_MERGE): $(BUILD)/examples/hist-merge/main.o $(TOOL_COMMON_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^
