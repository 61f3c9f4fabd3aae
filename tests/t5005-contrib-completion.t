#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Bash completion: dtresolve's options and values, the plugin's --dlarg
# values after perf script --dlarg.
. "$(dirname "$0")/lib.sh"
dt_require bash

complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		 $FN; printf "%s\n" "${COMPREPLY[@]}"' x "$DT_SRC/contrib/completion.bash" "$@"
}

dt_test 'dtresolve --for<TAB> completes --format=' '
	FN=_dtresolve complete_words dtresolve --for >out && grep -qx -- "--format=" out
'
dt_test 'dtresolve --format=<TAB> offers tsv perf json' '
	FN=_dtresolve complete_words dtresolve --format= >out &&
	test "$(sort out | tr "\n" " ")" = "json perf tsv "
'
dt_test 'dtresolve --aggregate=an<TAB> completes annotate' '
	FN=_dtresolve complete_words dtresolve --aggregate=an >out && grep -qx annotate out
'
dt_test 'every long option of dtresolve --help is offered' '
	FN=_dtresolve complete_words dtresolve -- >out &&
	"$DTRESOLVE" --help | sed -n "/^Options:/,/^$/p" | grep -o -- "--[a-z-]*" | sort -u >opts &&
	for o in $(cat opts); do grep -q -- "^$o" out || { echo "missing $o"; exit 1; }; done
'
dt_test 'perf script --dlarg ann<TAB> offers annotate' '
	FN=_dtprof_perf complete_words perf script --dlarg ann >out && grep -qx annotate out
'
dt_test 'every --dlarg of the plugin s help is offered' '
	FN=_dtprof_perf complete_words perf script --dlarg "" >out &&
	for a in advise advise= code= html= sharing stat; do grep -qx -- "$a" out || { echo "missing $a"; exit 1; }; done
'
dt_test 'dtresolve --aggregate=<TAB> offers advise, code= and html' '
	FN=_dtresolve complete_words dtresolve --aggregate= >out &&
	grep -qx advise out && grep -qx code= out && grep -qx html out
'
dt_done
