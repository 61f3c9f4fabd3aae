#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Compressed separate debug info (as Debian's -dbg packages ship it) is
# inflated once and kept in dtprof's cache under its build-id: later runs
# read the copy and answer the same.  A copy of another build, one cut
# short or one that is not a regular file is not used (and a good copy
# takes its place); DTPROF_NO_CACHE=1 and a cache that cannot be written
# change nothing but the time.
. "$(dirname "$0")/lib.sh"
dt_require gcc objcopy strip readelf

dt_corpus_build_id
dir=root/.build-id/$(echo "$id" | cut -c1-2)
debug=$dir/$(echo "$id" | cut -c3-).debug
copy=${debug#root/}	# the copy's place in a cache: a build-id tree too
mkdir -p "$dir" bin
objcopy --only-keep-debug --compress-debug-sections=zlib corpus "$debug"
strip --strip-debug -o bin/corpus corpus
# resolve CACHE: the stripped binary's requests, the copy kept in CACHE
resolve() {
	DTPROF_CACHE_DIR=$PWD/$1 "$DTRESOLVE" --debuginfo-path="$PWD/root" -e bin/corpus addrs
}
# compressed FILE: FILE has a compressed .debug_ section
compressed() {
	readelf -S -W "$1" | grep '\.debug_' | grep -q ' [A-Z]*C[A-Z]* '
}
# same_dwarf A B: readelf reads the same DWARF from both
same_dwarf() {
	readelf --debug-dump=info,abbrev,loc,str "$1" | grep -v 'loaded from' >dwarf.a &&
	readelf --debug-dump=info,abbrev,loc,str "$2" | grep -v 'loaded from' >dwarf.b &&
	test -s dwarf.a && cmp -s dwarf.a dwarf.b
}

dt_test 'the debug file is compressed, and resolves the requests' '
	grep -q "struct callchain_list	16	ms.map" want && compressed "$debug"
'
dt_test 'first run: the same answers, and an inflated copy in the cache' '
	resolve cache >out 2>err && dt_cmp want out && ! test -s err &&
	test -f cache/$copy && ! compressed cache/$copy &&
	readelf -n cache/$copy | grep -q "Build ID: $id"
'
dt_test 'the copy holds the same DWARF as the debug file' '
	same_dwarf "$debug" cache/$copy
'
dt_test 'later runs read the copy: the same answers without the debug file' '
	mv root root.away && resolve cache >out 2>err; rc=$?; mv root.away root &&
	test $rc = 0 && dt_cmp want out && ! test -s err
'

# copies that must not be used; each is replaced by a good one
sed "s/^struct callchain_list {/struct callchain_list { long pad[3];/" \
	"$DT_SRC/tests/fixtures/corpus.c" >other.c
gcc -O2 -g -Wl,--build-id -o other other.c
dt_test 'a copy of another build under the build-id: not used, replaced' '
	mkdir -p bad/$(dirname $copy) && objcopy --only-keep-debug other bad/$copy &&
	resolve bad >out 2>err && dt_cmp want out && ! test -s err &&
	readelf -n bad/$copy | grep -q "Build ID: $id"
'
dt_test 'a copy cut short: not used, replaced' '
	mkdir -p short/$(dirname $copy) && head -c 2000 cache/$copy >short/$copy &&
	resolve short >out 2>err && dt_cmp want out && ! test -s err &&
	cmp -s short/$copy cache/$copy
'
dt_test 'a FIFO where the copy would be: no hang, the same answers' '
	mkdir -p fifo/$(dirname $copy) && mkfifo fifo/$copy &&
	DTPROF_CACHE_DIR=$PWD/fifo timeout 60 "$DTRESOLVE" --debuginfo-path="$PWD/root" \
		-e bin/corpus addrs >out 2>err && dt_cmp want out && ! test -s err
'

# the cache is walked from checked directories: a symlink or a directory
# of another user's inside it never takes a copy elsewhere
xx=$(echo "$id" | cut -c1-2)
dt_test 'the copy and its directories: modes 0600 and 0700' '
	test "$(stat -c %a cache cache/.build-id cache/.build-id/$xx)" = "700
700
700" &&
	test "$(stat -c %a cache/$copy)" = 600
'
dt_test '.build-id/xx a symlink to another directory: nothing written there' '
	mkdir -p linked/.build-id elsewhere && ln -s "$PWD/elsewhere" linked/.build-id/$xx &&
	resolve linked >out 2>err && dt_cmp want out && ! test -s err &&
	test -z "$(ls -A elsewhere)" &&
	DTPROF_DEBUG=1 resolve linked >/dev/null 2>err &&
	grep -q "not stored in the cache: Not a directory" err ||
	dt_show err
'
dt_test '.build-id a symlink: nothing written where it leads' '
	mkdir -p linked2 elsewhere2 && ln -s "$PWD/elsewhere2" linked2/.build-id &&
	resolve linked2 >out 2>err && dt_cmp want out && ! test -s err &&
	test -z "$(ls -A elsewhere2)"
'
dt_test 'a copy that is a symlink to a good copy: not followed, replaced' '
	mkdir -p symcopy/.build-id/$xx &&
	ln -s "$PWD/cache/$copy" symcopy/$copy &&
	resolve symcopy >out 2>err && dt_cmp want out && ! test -s err &&
	test -f symcopy/$copy && ! test -L symcopy/$copy
'
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	dt_test 'a directory in the cache owned by another user: refused, nothing written' '
		mkdir -p theirs/.build-id/$xx && chown nobody theirs/.build-id/$xx &&
		resolve theirs >out 2>err && dt_cmp want out && ! test -s err &&
		test -z "$(ls -A theirs/.build-id/$xx)" &&
		DTPROF_DEBUG=1 resolve theirs >/dev/null 2>err &&
		grep -q "not stored in the cache: Operation not permitted" err || dt_show err
	'
else
	dt_skip 'a directory in the cache owned by another user' 'needs root and a nobody user'
fi

dt_test 'DTPROF_NO_CACHE=1: the same answers, nothing stored' '
	DTPROF_NO_CACHE=1 resolve off >out 2>err && dt_cmp want out && ! test -s err &&
	! test -e off
'
dt_test 'a cache that cannot be made: the same answers, no message, said when tracing' '
	DTPROF_CACHE_DIR=/dev/null/dtprof "$DTRESOLVE" --debuginfo-path="$PWD/root" \
		-e bin/corpus addrs >out 2>err && dt_cmp want out && ! test -s err &&
	DTPROF_DEBUG=1 DTPROF_CACHE_DIR=/dev/null/dtprof "$DTRESOLVE" --debuginfo-path="$PWD/root" \
		-e bin/corpus addrs >out 2>err &&
	grep -q "bin/corpus: its inflated debug file not stored in the cache: Not a directory" err ||
	dt_show err
'
dt_test 'the cache is a build-id tree: a debug root for any tool' '
	"$DTRESOLVE" --debuginfo-path="$PWD/cache" -e bin/corpus addrs >out 2>err &&
	dt_cmp want out && ! test -s err
'
dt_test 'the default cache: $XDG_CACHE_HOME/dtprof, else ~/.cache/dtprof' '
	env -u DTPROF_CACHE_DIR XDG_CACHE_HOME="$PWD/xdg" HOME="$PWD/nohome" \
		"$DTRESOLVE" --debuginfo-path="$PWD/root" -e bin/corpus addrs >out &&
	dt_cmp want out && test -f xdg/dtprof/$copy && ! test -e nohome &&
	mkdir home && env -u DTPROF_CACHE_DIR -u XDG_CACHE_HOME HOME="$PWD/home" \
		"$DTRESOLVE" --debuginfo-path="$PWD/root" -e bin/corpus addrs >out &&
	dt_cmp want out && test -f home/.cache/dtprof/$copy
'
dt_test 'a plain (uncompressed) debug file is not copied' '
	mkdir -p plain/.build-id/$(echo "$id" | cut -c1-2) &&
	objcopy --only-keep-debug corpus plain/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug &&
	DTPROF_CACHE_DIR=$PWD/plaincache "$DTRESOLVE" --debuginfo-path="$PWD/plain" \
		-e bin/corpus addrs >out 2>err && dt_cmp want out && ! test -e plaincache/$copy
'

# corrupted debug files, and corrupted copies: no crash, every line answered
answered() {	# answered CACHE: both the storing run and the reading one
	for run in store read; do
		DTPROF_CACHE_DIR=$PWD/$1 dt_no_crash "$DTRESOLVE" --debuginfo-path="$PWD/fuzzroot" \
			-e bin/corpus addrs >out 2>err &&
		test $(wc -l <out) = $(wc -l <addrs) || { sed 's/^/#   /' err | tail -3; return 1; }
	done
}
fuzzdebug=fuzzroot/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
mkdir -p "$(dirname "$fuzzdebug")"
bad=0
for seed in $(seq 1 30); do
	"$DT_SRC/tests/mutate-elf" $seed "$debug" "$fuzzdebug"
	answered fuzz$seed || { bad=$((bad + 1)); echo "# debug file seed $seed failed"; }
	rm -rf fuzz$seed
done
dt_test '30 corrupted compressed debug files: no crash, every line answered' 'test $bad = 0'
cp "$debug" "$fuzzdebug"
bad=0
for seed in $(seq 1 30); do
	mkdir -p fuzzcopy/$(dirname $copy) && "$DT_SRC/tests/mutate-elf" $seed cache/$copy fuzzcopy/$copy
	answered fuzzcopy || { bad=$((bad + 1)); echo "# copy seed $seed failed"; }
	rm -rf fuzzcopy
done
dt_test '30 corrupted copies in the cache: no crash, every line answered' 'test $bad = 0'
dt_done
