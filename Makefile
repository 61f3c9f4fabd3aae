# SPDX-License-Identifier: GPL-3.0-or-later
# dtprof: one non-recursive Makefile.
#   make                 build libdtprof.a and dtresolve into $(O)
#   make check           build (installing its packages when missing), run the TAP suite
#   make check-slow      the sweeps, live recordings and valgrind runs
#   make check SANITIZE=1  the same under ASan + UBSan, in build/san
#   make bench           benchmarks (not tests)
#   make bench-callgrind where the plugin's work goes, in instructions (after make bench)
#   make bench-kernel    dtresolve on Debian's vmlinux and two modules (downloads once)
#   make coverage        attribution per category, compiler and -O level
#   make fuzz-accuracy   random programs checked by execution (SEEDS=200)
#   make accuracy-addresses  data addresses from registers, checked under gdb
#   make accuracy-real   real programs from Debian sources, checked by execution
#   make fuzz            AFL++ on every parser, FUZZ_SECONDS a target
#   make demo            record and analyse the built-in example
#   make install         PREFIX=/usr/local DESTDIR=
#   make deps            install the Debian packages the build and demo need
#   make deps-test       and every test's tools, perf 6.12 in build/perf-6.12
#   make deps-bench      and the benchmarks'

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKG_CONFIG ?= pkg-config
CC ?= cc
OBJCOPY ?= objcopy
SANITIZE ?=

ifeq ($(SANITIZE),1)
O ?= build/san
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
O ?= build
SAN_FLAGS =
endif

ifneq ($(V),1)
Q = @
echo_cmd = @printf '  %-8s %s\n' $(1) $(2);
else
Q =
echo_cmd =
endif

DW_CFLAGS := $(shell $(PKG_CONFIG) --cflags libdw libelf 2>/dev/null)
DW_LIBS := $(shell $(PKG_CONFIG) --libs libdw libelf 2>/dev/null || echo -ldw -lelf)
# the plugin reads dtprof-record's event payloads with libtraceevent
TEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags libtraceevent 2>/dev/null || echo -I/usr/include/traceevent)
TEP_LIBS := $(shell $(PKG_CONFIG) --libs libtraceevent 2>/dev/null || echo -ltraceevent)

# warnings are errors in development; WERROR=0 for a packager's newer
# compiler
WERROR ?= 1
WARN = -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Wshadow -Wstrict-prototypes -Wformat=2
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) $(DW_CFLAGS) -fPIC -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SAN_FLAGS)
# Debian's binutils-multiarch-dev decodes every ISA; plain binutils-dev
# only the host's
OPCODES_LIBS := $(if $(wildcard $(shell $(CC) -print-file-name=libopcodes-multiarch.so)),-lopcodes-multiarch -lbfd-multiarch,-lopcodes -lbfd)
LIBS = $(DW_LIBS) $(OPCODES_LIBS) -lz -lm

ARCH_SRC = arch/arch.c arch/x86_64.c arch/x86_64_quick.c arch/aarch64.c
# the library, by layer (doc/DESIGN.md): the engine, the DWARF
# accelerators beneath it, and the report model with its views
ENGINE_SRC = $(addprefix lib/engine/,session.c decode.c scope.c typewalk.c resolve.c \
	util.c text.c funcmap.c layout.c dsos.c globals.c track.c containers.c \
	dataaddr.c typenames.c cstruct.c debuginfo.c debugcache.c demangle.c oom.c \
	relocs.c kmodules.c perfdata.c members.c typememo.c unitwalk.c allocsite.c \
	answerstore.c)
DWARF_SRC = $(addprefix lib/dwarf/,children.c linefiles.c loclist.c pages.c sections.c)
REPORT_SRC = $(addprefix lib/report/,report.c views.c out.c tables.c datasrc.c sharing.c \
	objects.c reallines.c advise.c codeview.c html.c heap.c heapview.c)
LIB_SRC = $(ENGINE_SRC) $(DWARF_SRC) $(REPORT_SRC) $(ARCH_SRC)
# dtresolve: its options and line loop, and the perf script text it reads
DTRESOLVE_SRC = $(addprefix tools/dtresolve/,dtresolve.c stream.c lineparse.c lineread.c maps.c)
LIB_OBJ = $(LIB_SRC:%.c=$(O)/%.o)
LIB = $(O)/libdtprof.a
DTRESOLVE = $(O)/dtresolve

TEST_TOOLS = $(O)/tests/dtinsns $(O)/tests/dtsite $(O)/tests/dtparse $(O)/tests/dttrack $(O)/tests/dtfuzz \
	     $(O)/tests/dtbuildids $(O)/tests/oom-session \
	     $(O)/tests/qemu-trace.so
TEST_UNITS = $(patsubst tests/%.c,$(O)/tests/%,$(wildcard tests/unit-*.c))

PLUGIN = $(O)/dtplugin.so
PLUGIN_CFLAGS = -fvisibility=hidden $(TEP_CFLAGS)

all: $(LIB) $(DTRESOLVE) $(PLUGIN)

$(O)/plugin/%.o: plugin/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call echo_cmd,CC,$<)$(CC) $(ALL_CFLAGS) $(PLUGIN_CFLAGS) -c -o $@ $<

# What the front ends share and the library must not do (read the
# environment): linked into dtresolve and the plugin, not libdtprof.a.
FRONTEND_OBJ = $(O)/frontend/env.o $(O)/frontend/pages.o
# what only a command that owns its process does (heap, SIGABRT)
PROCESS_OBJ = $(O)/frontend/process.o
$(O)/frontend/%.o: frontend/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call echo_cmd,CC,$<)$(CC) $(ALL_CFLAGS) $(PLUGIN_CFLAGS) -c -o $@ $<

# The library goes inside the plugin, its symbols hidden: perf sees only
# the dlfilter entry points.
$(PLUGIN): $(O)/plugin/dtplugin.o $(O)/plugin/handoff.o $(O)/plugin/prefetch.o \
	   $(O)/plugin/sites.o $(O)/plugin/allocevents.o $(FRONTEND_OBJ) $(LIB)
	$(call echo_cmd,LINK,$@)$(CC) $(ALL_LDFLAGS) -shared -Wl,--exclude-libs,ALL -o $@ $^ \
		$(LIBS) $(TEP_LIBS)

# objects are built again when the flags change (CFLAGS=, SANITIZE=...)
FLAGS_STAMP = $(O)/.cflags
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(ALL_CFLAGS) $(CC)' | cmp -s - $@ 2>/dev/null || echo '$(ALL_CFLAGS) $(CC)' >$@

$(O)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call echo_cmd,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# the library's own objects: only what dtprof.h marks DT_API is visible
$(LIB_OBJ): ALL_CFLAGS += -fvisibility=hidden

# The engine's identity, for answers kept across runs (answerstore.c): a
# hash of the sources that make answers, written again only when it
# changes (so that only answerstore.o is rebuilt)
ENGINE_ID_SOURCES = $(sort $(wildcard lib/*.h lib/engine/*.[ch] lib/dwarf/*.[ch] arch/*.[ch]))
$(O)/engine-id.h: $(ENGINE_ID_SOURCES)
	@mkdir -p $(dir $@)
	@printf '#define DT_ENGINE_ID "%s"\n' "$$(cat $^ | sha1sum | cut -c1-16)" >$@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@
$(O)/lib/engine/answerstore.o: $(O)/engine-id.h
$(O)/lib/engine/answerstore.o: ALL_CFLAGS += -I$(O)

# The layers, kept by the build: the views and the report model include
# the public header and the model's, never the engine's or the DWARF
# accelerators'; the accelerators never the engine's.
LAYER_STAMP = $(O)/.layers
$(LAYER_STAMP): $(wildcard lib/report/*.[ch] lib/dwarf/*.[ch])
	@mkdir -p $(dir $@)
	@if grep -n '^#include "\.\./\(engine\|dwarf\)/' $(wildcard lib/report/*.[ch]) /dev/null || \
	    grep -n '^#include "\.\./\(engine\|dtprof\.h\|report\)' $(wildcard lib/dwarf/*.[ch]) /dev/null; then \
		echo "make: the include above crosses a layer (doc/DESIGN.md)" >&2; exit 1; fi
	@touch $@
$(LIB_OBJ): | $(LAYER_STAMP)

# the archive the front ends and tests link (internal functions too)
$(LIB): $(LIB_OBJ)
	$(call echo_cmd,AR,$@)rm -f $@ && $(AR) rcs $@ $^

# the archive installed for other programs: one object whose hidden
# symbols are local, so that its only globals are the API's dt_* and
# nothing else of it can clash with the program's own names
DIST_LIB = $(O)/dist/libdtprof.a
$(DIST_LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(call echo_cmd,AR,$@)rm -f $@ && $(LD) -r -o $(O)/dist/libdtprof.o $^ && \
		$(OBJCOPY) --localize-hidden $(O)/dist/libdtprof.o && \
		$(AR) rcs $@ $(O)/dist/libdtprof.o

$(DTRESOLVE): $(DTRESOLVE_SRC:%.c=$(O)/%.o) $(FRONTEND_OBJ) $(PROCESS_OBJ) $(LIB)
	$(call echo_cmd,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# the tests link dtresolve's line parsers too (all but its main)
TOOLS_OBJ = $(patsubst %.c,$(O)/%.o,$(filter-out %/dtresolve.c,$(DTRESOLVE_SRC)))
$(O)/tests/%: $(O)/tests/%.o $(FRONTEND_OBJ) $(PROCESS_OBJ) $(TOOLS_OBJ) $(LIB)
	$(call echo_cmd,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -ldl

# the plugin's reader of event formats, alone
$(O)/tests/unit-allocevents: $(O)/tests/unit-allocevents.o $(O)/plugin/allocevents.o $(LIB)
	$(call echo_cmd,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(TEP_LIBS)

# the plugin's site table, alone
$(O)/tests/unit-sites: $(O)/tests/unit-sites.o $(O)/plugin/sites.o $(LIB)
	$(call echo_cmd,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# the accuracy generator's AArch64 truth: a plugin of qemu-user's own
$(O)/tests/qemu-trace.so: tests/gen/qemu-trace.c
	@mkdir -p $(dir $@)
	$(call echo_cmd,CC,$<)$(CC) -std=gnu11 $(WARN) -O2 -fPIC -shared -o $@ $<

tests: all $(TEST_TOOLS) $(TEST_UNITS)

# Debian 12's packages, by what needs them.  libdw, libelf and elfutils
# 0.191 or later (bookworm-backports) read DWARF packages (.dwp); dtprof
# builds with 0.188 too, and says what it misses.
BUILD_PACKAGES = build-essential pkg-config binutils-dev binutils-multiarch-dev \
	zlib1g-dev 'libdw-dev>=0.191' 'libelf-dev>=0.191' 'elfutils>=0.191' \
	libtraceevent-dev
# make demo records the example with perf
DEMO_PACKAGES = $(BUILD_PACKAGES) linux-perf python3
# every tool a test uses; make check skips a test whose tool is missing
TEST_PACKAGES = $(DEMO_PACKAGES) gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	clang llvm perl time valgrind qemu-user sqlite3 gdb strace libc6-dbg \
	chromium dwz
# make bench also builds perf from Debian's kernel source as its large binary
BENCH_PACKAGES = $(TEST_PACKAGES) bc linux-source-6.1 flex bison
# Rust fixtures: the machine's rustup toolchain, else Debian's rustc
RUSTC_OR_PACKAGE = $(if $(shell command -v rustc || ls $(HOME)/.cargo/bin/rustc 2>/dev/null),,rustc)

# make deps: what the build and make demo need; deps-test: every test's
# tools and perf 6.12 (beside the system's perf, in build/perf-6.12);
# deps-bench: the benchmarks' too
deps:
	@sh contrib/install-deps.sh $(DEMO_PACKAGES)
deps-test:
	@sh contrib/install-deps.sh $(TEST_PACKAGES) $(RUSTC_OR_PACKAGE)
	@sh contrib/install-perf-6.12.sh build/perf-6.12 >/dev/null
deps-bench: deps-test
	@sh contrib/install-deps.sh $(BENCH_PACKAGES)

# make check installs only what the build itself needs, when missing (the
# README's promise on a fresh machine); a test whose tool is missing is
# skipped, saying which (DT_TEST_STRICT=1, as CI sets it, fails instead).
# Tests whose file says "# check-slow: WHY" (sweeps, live recordings,
# valgrind runs) are make check-slow's.
SLOW_TESTS := $(shell grep -l '^\# check-slow:' tests/*.t)
FAST_TESTS := $(filter-out $(SLOW_TESTS),$(wildcard tests/*.t))
PROVE = DT_BUILD=$(abspath $(O)) DT_PLUGIN=$(abspath $(PLUGIN)) prove -j2 --exec tests/run

check-prepare:
	@sh contrib/install-deps.sh --if-missing $(BUILD_PACKAGES)
	@test -x build/perf-6.12/usr/bin/perf || test -x build/perf-6.12/usr/bin/perf_6.12 || \
		echo "make check: perf 6.12 is not in build/perf-6.12 (make deps-test): its tests are skipped" >&2
	@$(MAKE) --no-print-directory tests

check: check-prepare
	$(PROVE) $(FAST_TESTS) $(TEST_UNITS)

check-slow: check-prepare
	$(PROVE) $(SLOW_TESTS)

$(O)/bench/null-dlfilter.so: bench/null-dlfilter.c
	@mkdir -p $(dir $@)
	$(call echo_cmd,CC,$<)$(CC) $(ALL_CFLAGS) -shared -o $@ $<

bench:
	@sh contrib/install-deps.sh --if-missing $(BENCH_PACKAGES)
	@sh contrib/install-perf-6.12.sh build/perf-6.12 >/dev/null || true
	@$(MAKE) --no-print-directory all $(TEST_TOOLS) $(O)/bench/null-dlfilter.so \
		$(O)/bench/resolve-ip-dlfilter.so
	DT_BUILD=$(abspath $(O)) sh bench/run.sh
	@echo
	sh bench/plugin.sh $(abspath $(O)) $(abspath $(O))/bench/plugin
	@echo
	sh bench/scaling.sh $(abspath $(O)) $(abspath $(O))/bench/scaling

$(O)/bench/resolve-ip-dlfilter.so: bench/resolve-ip-dlfilter.c
	@mkdir -p $(dir $@)
	$(call echo_cmd,CC,$<)$(CC) $(ALL_CFLAGS) -shared -o $@ $<

# where the plugin's work goes on make bench's hard case, in instructions
bench-callgrind:
	@sh contrib/install-deps.sh --if-missing valgrind
	@$(MAKE) --no-print-directory all $(O)/bench/null-dlfilter.so $(O)/bench/resolve-ip-dlfilter.so
	sh bench/callgrind.sh $(abspath $(O)) $(abspath $(O))/bench/plugin

# a kernel: Debian's vmlinux with DWARF, downloaded (about 860 MB) only here
bench-kernel:
	@sh contrib/install-deps.sh --if-missing $(TEST_PACKAGES) bc
	@$(MAKE) --no-print-directory all $(TEST_TOOLS) $(O)/tests/unit-children $(O)/tests/unit-quick
	sh bench/kernel.sh $(abspath $(O)) $(abspath $(O))/bench/kernel

# per category, compiler and -O level: right / wrong field / wrong type / unknown
coverage:
	@$(MAKE) --no-print-directory all $(TEST_TOOLS)
	@DT_BUILD=$(abspath $(O)) sh bench/coverage.sh
	@echo
	@DT_BUILD=$(abspath $(O)) sh bench/skid.sh

# The accuracy generator (tests/gen): SEEDS random programs per build, each
# memory instruction scored against what it touched when the program ran.
SEEDS ?= 200
FIRST_SEED ?= 1000
ACCURACY_BUILDS ?= gcc-O0 gcc-O1 gcc-O2 gcc-O3 gcc-Os \
	clang-O0 clang-O1 clang-O2 clang-O3 clang-Os \
	aarch64-linux-gnu-gcc-O0 aarch64-linux-gnu-gcc-O2
fuzz-accuracy:
	@sh contrib/install-deps.sh --if-missing $(TEST_PACKAGES)
	@$(MAKE) --no-print-directory tests
	@rm -rf $(O)/accuracy
	DT_BUILD=$(abspath $(O)) tests/gen/run -w $(O)/accuracy $(FIRST_SEED) $(SEEDS) \
		$(ACCURACY_BUILDS)

# Data addresses computed from --user-regs samples, checked under gdb on
# the fixture, the examples and perf itself (built as make bench does).
accuracy-addresses:
	@sh contrib/install-deps.sh --if-missing $(BENCH_PACKAGES)
	@$(MAKE) --no-print-directory all
	sh bench/addresses.sh $(abspath $(O)) $(abspath $(O))/accuracy-addresses

# lua5.4 and zstd from Debian sources and perf, each answer whose data
# address lies in a heap block checked against that block (bench/).
accuracy-real:
	@sh contrib/install-deps.sh --if-missing $(BENCH_PACKAGES) dwarves
	@$(MAKE) --no-print-directory all
	sh bench/accuracy-real.sh $(abspath $(O)) $(abspath $(O))/accuracy-real

# the same programs recorded with their allocator's calls (dtprof-record):
# samples typed without and with allocation sites (needs accuracy-real's
# programs, and uprobes: root); and what each allocation site proves
# against the size it asks for (bench/alloc-sites.py)
accuracy-heap:
	@$(MAKE) --no-print-directory all $(O)/tests/dtsite
	sh bench/heap-real.sh $(abspath $(O)) $(abspath $(O))/accuracy-real

# the sharing verdicts against a known truth: two threads' visits to an
# object in the patterns programs have, samples drawn from fixed seeds
accuracy-sharing:
	@$(MAKE) --no-print-directory all
	python3 tests/sharing-calibrate.py $(abspath $(O))/dtresolve $(abspath $(O))/accuracy-sharing 3

# AFL++ on each parser (tests/fuzz/run), an instrumented build of its own
# in build/afl (with ASan: memory errors are findings too); what it finds
# lands in tests/fuzz/found/, which make check
# replays.  FUZZ_TARGETS: lines perfscript elf decode-x86 decode-a64
# perfdata.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
fuzz:
	@sh contrib/install-deps.sh --if-missing $(TEST_PACKAGES) afl++
	@AFL_USE_ASAN=1 $(MAKE) --no-print-directory O=build/afl CC=afl-clang-fast tests
	sh tests/fuzz/run build/afl $(FUZZ_SECONDS) $(FUZZ_TARGETS)

demo:
	@sh contrib/install-deps.sh --if-missing $(DEMO_PACKAGES)
	@$(MAKE) --no-print-directory all
	DT_BUILD=$(abspath $(O)) sh examples/demo.sh

# perf finds "--dlfilter NAME" in $(perf --exec-path)/dlfilters; a PREFIX
# given on the command line keeps the plugin under it too (then name it
# by its path: perf script --dlfilter PREFIX/libexec/perf-core/...)
ifeq ($(origin PREFIX),command line)
DLFILTERDIR ?= $(PREFIX)/libexec/perf-core/dlfilters
else
DLFILTERDIR ?= $(shell perf --exec-path 2>/dev/null || echo /usr/libexec/perf-core)/dlfilters
endif
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions

# the library for programs that link it: dtprof.h, libdtprof.a, dtprof.pc
# (made at each install: it holds the install's directories)
$(O)/dtprof.pc: FORCE
	@mkdir -p $(dir $@)
	$(call echo_cmd,GEN,$@)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' \
		'includedir=$(INCLUDEDIR)' '' 'Name: dtprof' \
		'Description: name the C type and field a memory access touches (perf data-type profiles)' \
		"Version: $$(sed -n 's/^#define DTPROF_VERSION \"\(.*\)\"/\1/p' lib/dtprof.h)" \
		'Requires.private: libdw libelf' 'Libs: -L$${libdir} -ldtprof' \
		'Libs.private: $(OPCODES_LIBS) -lz -lm -lpthread' \
		'Cflags: -I$${includedir}/dtprof' >$@

install: all $(DIST_LIB) $(O)/dtprof.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DLFILTERDIR) $(DESTDIR)$(COMPLETIONDIR) \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/dtprof
	install -m 755 $(DTRESOLVE) $(DESTDIR)$(BINDIR)/dtresolve
	install -m 755 contrib/dtprof-record $(DESTDIR)$(BINDIR)/dtprof-record
	install -m 644 $(PLUGIN) $(DESTDIR)$(DLFILTERDIR)/dtplugin.so
	install -m 644 doc/dtresolve.1 doc/dtplugin.1 doc/dtprof-record.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 contrib/completion.bash $(DESTDIR)$(COMPLETIONDIR)/dtresolve
	install -m 644 lib/dtprof.h $(DESTDIR)$(INCLUDEDIR)/dtprof/dtprof.h
	install -m 644 $(DIST_LIB) $(DESTDIR)$(LIBDIR)/libdtprof.a
	install -m 644 $(O)/dtprof.pc $(DESTDIR)$(LIBDIR)/pkgconfig/dtprof.pc
	install -d $(DESTDIR)$(PREFIX)/share/dtprof
	install -m 644 contrib/types.sql $(DESTDIR)$(PREFIX)/share/dtprof/types.sql

# the build directory (O=, build by default), and nothing else
clean:
	rm -rf $(O)

FORCE:
.PHONY: FORCE all tests deps deps-test deps-bench check-prepare check check-slow bench bench-callgrind bench-kernel coverage fuzz-accuracy accuracy-addresses accuracy-real accuracy-heap accuracy-sharing fuzz demo install clean
.SECONDARY:

-include $(shell find $(O)/lib $(O)/tools $(O)/arch $(O)/tests $(O)/plugin $(O)/frontend -name '*.d' -type f 2>/dev/null)
