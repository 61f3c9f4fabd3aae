#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Where the plugin's work goes on the hard case (perf running perf report,
# bench/plugin.sh's perfreport.data) and on its small profile (opening
# and naming, nearly all of it), counted in instructions by callgrind:
# unlike time on this shared machine, the same on every run.  The plugin
# with threads=1 (everything in perf's thread) beside the do-nothing floor
# and the floor that also calls resolve_ip; then the plugin's parts.
#   callgrind.sh BUILD WORKDIR   (after make bench made perfreport.data)
set -eu
build=$1 work=$2
data=$work/perfreport.data
[ -s "$data" ] || { echo "callgrind.sh: no $data: run make bench first" >&2; exit 1; }
cd "$work"
# total instructions of perf script with dlfilter $1 (and its dlargs)
count() {
	out=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		perf script -i "$data" --dlfilter "$@" >/dev/null 2>"$out.err"
	sed -n 's/.*I *refs: *//p' "$out.err" | tr -d ,
}
# inclusive instructions of the plugin's functions matching $2 in $1
part() {
	callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
		awk -v f="$2" '$0 ~ f && $0 ~ /dtplugin|lib\/|plugin\// {
			gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 } END { print m + 0 }'
}
n=$(perf script -i "$data" -F ip 2>/dev/null | wc -l)
# inflated copies of compressed debug files (libc's, ld.so's) are read
# from the plugin's cache, as on every run after a machine's first
# (bench/plugin.sh's cache; one run fills it when empty)
DTPROF_CACHE_DIR=$work/cache
export DTPROF_CACHE_DIR
perf script -i "$data" --dlfilter "$build/dtplugin.so" --dlarg stat >/dev/null 2>&1
M() { echo "$1" | awk '{ printf "%.0f M", $1 / 1e6 }'; }

# The small profile: what the plugin adds there is nearly
# all one-time work, opening debug info and naming each distinct
# instruction once.
small=$work/perfreport-small.data
if [ -s "$small" ]; then
	data=$small
	floor=$(count cg.floor "$build/bench/null-dlfilter.so")
	plugin=$(count cg.plugin "$build/dtplugin.so" --dlarg threads=1)
	open=$(part cg.plugin 'dt_dsos_get')
	DTPROF_NO_CACHE=1 count cg.nocache "$build/dtplugin.so" --dlarg threads=1 >/dev/null
	open_nocache=$(part cg.nocache 'dt_dsos_get')
	echo "perfreport-small.data: $(perf script -i "$data" -F ip 2>/dev/null | wc -l) samples; instructions (callgrind), plugin with threads=1:"
	echo "  perf script, do-nothing dlfilter (the floor)   $(M "$floor")"
	echo "  plugin                                         $(M "$plugin")  (+$(echo "($plugin - $floor) * 100 / $floor" | bc)%)"
	echo "    opening debug info (dt_dsos_get)             $(M "$open")  ($(M "$open_nocache") without the cache of inflated debug files)"
	echo "    the rest (naming, the tables)                $(M $((plugin - floor - open)))"
	echo
	data=$work/perfreport.data
fi
floor=$(count cg.floor "$build/bench/null-dlfilter.so")
rip=$(count cg.rip "$build/bench/resolve-ip-dlfilter.so")
plugin=$(count cg.plugin "$build/dtplugin.so" --dlarg threads=1)
echo "perfreport.data: $n samples; instructions (callgrind), plugin with threads=1:"
echo "  perf script, do-nothing dlfilter (the floor)   $(M "$floor")"
echo "  plugin                                         $(M "$plugin")  (+$(echo "($plugin - $floor) * 100 / $floor" | bc)%)"
echo "  of the plugin's extra:"
echo "    perf's resolve_ip                            $(M $((rip - floor)))  ($(( (rip - floor) / n )) a sample)"
echo "    opening debug info (dt_dsos_get)             $(M "$(part cg.plugin 'dt_dsos_get')")"
echo "    finding each sample's dso and site           $(M $(( $(part cg.plugin 'sites_get') + $(part cg.plugin 'sites_dso') )))"
# counting a sample (dtplugin.c's count() and the sums it adds to) is
# inlined into the dlfilter's entry point, so callgrind cannot tell it
# apart: it is in the rest
echo "  the rest is counting the samples (naming too, for instructions no earlier run kept: the bench cache keeps them)"
echo "  and the queue of records"
rm -f cg.floor cg.rip cg.plugin cg.nocache cg.*.err
