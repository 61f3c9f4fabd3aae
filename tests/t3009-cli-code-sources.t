#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The source lines the code view and the HTML page show come from files
# the DWARF names, which may be anything: a FIFO or /dev/stdin is never
# opened to block (regular files only), and the HTML page, meant to be
# shared, embeds only files under the unit's compilation directory or a
# --source-dir, never /etc/passwd.
. "$(dirname "$0")/lib.sh"
dt_require gcc timeout

mkfifo fifo
# prog.c: get() says its lines come from FILE, main from prog.c itself
build() {
	cat >prog-$1.c <<EOF2
struct rec { long a; long b; };
#line 1 "$2"
__attribute__((noinline)) long get(struct rec *r) { return r->b; }
#line 5 "$PWD/prog-$1.c"
int main(void) { static struct rec x; return (int)get(&x); } /* own line */
EOF2
	gcc -O2 -g -o prog-$1 prog-$1.c &&
	"$DTINSNS" prog-$1 get main | cut -f1 >addrs-$1
}
build fifo "$PWD/fifo"
build stdin /dev/stdin
build passwd /etc/passwd

dt_test 'a FIFO named as the source: the code view ends, and says why' '
	timeout 20 "$DTRESOLVE" -e prog-fifo --aggregate=code=get addrs-fifo >out 2>err &&
	grep -q "^# source lines of .*/fifo. left out: not a regular file$" out &&
	grep -q "struct rec +8 (b)" out || dt_show out err
'

dt_test '/dev/stdin as the source, stdin a pipe that stays open: no wait' '
	mkfifo held && { sleep 30 >held & } && writer=$! &&
	{ timeout 20 "$DTRESOLVE" -e prog-stdin --aggregate=code=get addrs-stdin <held \
		>out 2>err; rc=$?; kill $writer; test $rc = 0; } &&
	grep -q "^# source lines of ./dev/stdin. left out: not a regular file$" out ||
	dt_show out err
'

dt_test 'the html page with a FIFO source: ends' '
	timeout 20 "$DTRESOLVE" -e prog-fifo --aggregate=html addrs-fifo >page.html 2>err &&
	grep -q "</html>" page.html || dt_show err
'

dt_test 'the terminal code view shows a regular file the DWARF names' '
	"$DTRESOLVE" -e prog-passwd --aggregate=code=get addrs-passwd >out 2>err &&
	grep -q "passwd:1  root:" out || dt_show out err
'

dt_test 'the html page leaves /etc/passwd out, says why, keeps its own source' '
	"$DTRESOLVE" -e prog-passwd --aggregate=html addrs-passwd >page.html 2>err &&
	! grep -q "root:" page.html &&
	grep -q "left out: outside the unit&#39;s compilation directory" page.html &&
	grep -q "own line" page.html || dt_show err
'

dt_test '--source-dir names /etc: then its lines are embedded' '
	"$DTRESOLVE" -e prog-passwd --aggregate=html --source-dir=/nonexistent:/etc \
		addrs-passwd >page.html 2>err &&
	grep -q "root:" page.html || dt_show err
'

dt_test 'a symlink under the compilation directory to /etc/passwd: left out' '
	ln -s /etc/passwd link.c && build link "$PWD/link.c" &&
	"$DTRESOLVE" -e prog-link --aggregate=html addrs-link >page.html 2>err &&
	! grep -q "root:" page.html || dt_show err
'

dt_done
