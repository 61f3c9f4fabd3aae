#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-slow: five recordings of 300 M rounds, and gdb stepping the real instructions
# Data addresses without a PMU: perf record --user-regs keeps each
# sample's registers, and dtresolve computes the address of the access
# it charges.  The addresses grade the sharing flags: two threads writing
# and reading one object are confirmed false sharing, two threads on
# objects of their own are refuted, one object used by two threads one
# after the other is refuted by the window, one object two threads use
# all the time but are seldom sampled on is never refuted; the advice
# pads only what is confirmed.  Every computed address is checked against execution: the
# objects the program printed, and gdb stepping the real instructions.
. "$(dirname "$0")/lib.sh"
dt_require gcc
dt_require gdb
dt_require python3
dt_require_perf_record

gcc -O2 -g -pthread -o ps "$DT_SRC/tests/fixtures/procshare.c"
for m in threads private turns; do
	perf record -q -N -e cpu-clock --user-regs -o $m.data -- \
		./ps $m 300000000 >$m.objects 2>>rec.err ||
		dt_skip_all "perf record --user-regs failed: $(head -n 1 rec.err)"
done
# about 40 us of work a round, then a burst of accesses: a few samples a
# second on the shared line, ten or so of each thread in a run; should
# one thread have none there, the premise is not met, and the run is
# made again, twice as long each time (four at most)
for rounds in 100000 200000 400000 800000; do
	perf record -q -N -e cpu-clock --user-regs -o seldom.data -- ./ps seldom $rounds \
		>seldom.objects 2>>rec.err ||
		dt_skip_all "perf record --user-regs failed: $(head -n 1 rec.err)"
	perf script -i seldom.data -F comm,pid,tid,time,event,ip,sym,symoff,dso,uregs \
		--show-mmap-events 2>/dev/null | "$DTRESOLVE" --aggregate=sharing 2>/dev/null |
		grep -q "^struct stats, cache line 0 .*, 2 threads" && break
done
# without address randomisation both processes have stats at one address
perf record -q -N -e cpu-clock --user-regs -o procs.data -- \
	setarch -R sh -c './ps write 300000000 & ./ps read 300000000; wait' >procs.objects 2>>rec.err ||
	dt_skip_all "perf record failed: $(head -n 1 rec.err)"

F=comm,pid,tid,time,event,ip,sym,symoff,dso,uregs
# dtresolve ARGS... < the perf script text of $1.data
through() {
	_m=$1
	shift
	perf script -i $_m.data -F $F --show-mmap-events 2>/dev/null |
		"$DTRESOLVE" "$@"
}

dt_test 'one object, two threads at once: false sharing, confirmed' '
	through threads --aggregate=sharing >threads.share 2>threads.err &&
	grep -q "^struct stats, cache line 0 .*: [0-9]* samples, 2 threads: false sharing, confirmed (1 real line)$" threads.share &&
	grep -q "^# objects with addresses: 1, 1 touched by several threads, 1 written" threads.share ||
	dt_show threads.share threads.err
'

dt_test 'objects of their own: false sharing, refuted' '
	through private --aggregate=sharing >private.share 2>private.err &&
	grep -q "^struct stats, cache line 0 .*, 2 threads: false sharing, refuted$" private.share &&
	grep -q "^# objects with addresses: 2, 0 touched by several threads, 0 written" private.share &&
	grep -q " 0 flagged (0 confirmed, 0 suspected), 1 refuted$" private.share ||
	dt_show private.share private.err
'

dt_test 'a window that is not milliseconds: exit 2, named, in both front ends' '
	{ "$DTRESOLVE" --window=-1 </dev/null 2>w.err; test $? = 2; } &&
	grep -q "^dtresolve: --window=-1: milliseconds, a number from 0$" w.err &&
	! dt_perf_script perf -i threads.data --dlarg window=soon >/dev/null 2>pw.err &&
	grep -q "^dtplugin: window=soon: milliseconds, a number from 0$" pw.err ||
	dt_show w.err pw.err
'
dt_test 'one object, two threads one after the other: refuted by the window' '
	through turns --aggregate=sharing >turns.share 2>turns.err &&
	grep -q "^struct stats, cache line 0 .*: false sharing, refuted$" turns.share &&
	through turns --aggregate=sharing --window=100000 >turns-wide.share 2>&1 &&
	grep -q "^struct stats, cache line 0 .*: false sharing, confirmed" turns-wide.share ||
	dt_show turns.share turns-wide.share
'

dt_test 'one object two threads share, seldom sampled there: never refuted' '
	through seldom --aggregate=sharing >seldom.share 2>&1 &&
	grep -q "^struct stats, cache line 0 .*, 2 threads: false sharing, \(suspected\|confirmed (1 real line)\)$" seldom.share &&
	! grep -q ", refuted$" seldom.share &&
	through seldom --aggregate=advise=stats >seldom.adv 2>&1 &&
	{ grep -q "confirmed (1 real line)$" seldom.share ||
	  { grep -q "^# 1 suspected with addresses: two threads in one real line" seldom.share &&
	    grep -q "sampled too seldom there" seldom.adv; }; } ||
	dt_show seldom.share seldom.adv
'
dt_test 'two processes with registers, one address: nothing flagged, two objects' '
	through procs --aggregate=sharing >procs.share 2>procs.err &&
	test $(sort -u procs.objects | wc -l) = 1 &&
	grep -q "2 threads of 2 processes" procs.share &&
	grep -q "^# objects with addresses: 2, 0 touched by several threads, 0 written" procs.share &&
	grep -q " 0 flagged (0 confirmed, 0 suspected), 0 refuted$" procs.share ||
	dt_show procs.share procs.err
'

# perf script's default fields have the tid, not the pid: the two
# processes' threads look like one process's, and their one address like
# one object, so nothing is confirmed from it, and no padding advised
dt_test 'two processes, no pid in the text: suspected at most, not padded' '
	perf script -i procs.data -F comm,tid,time,event,ip,sym,symoff,dso,uregs \
		--show-mmap-events 2>/dev/null >procs-nopid.txt &&
	"$DTRESOLVE" --aggregate=sharing procs-nopid.txt >nopid.share 2>nopid.err &&
	! grep -q "confirmed (" nopid.share &&
	grep -q "^struct stats, cache line 0 .*: false sharing, suspected$" nopid.share &&
	grep -q "^# [0-9]* addressed samples of no known process (add pid to perf script -F)" nopid.share &&
	"$DTRESOLVE" --aggregate=advise=stats procs-nopid.txt >nopid.adv 2>&1 &&
	! grep -q "aligned(64)" nopid.adv &&
	grep -q "not reordered: threads may share its objects" nopid.adv ||
	dt_show nopid.share nopid.err nopid.adv
'

dt_test 'advice pads the confirmed writer, and only it' '
	through threads --aggregate=advise=stats >threads.adv 2>&1 &&
	grep -q "long int writes __attribute__((aligned(64)));" threads.adv &&
	grep -q "^ \* memory: +88 bytes per object; 1 object seen in the samples: +88 bytes at least$" threads.adv &&
	through private --aggregate=advise=stats >private.adv 2>&1 &&
	! grep -q "aligned(64)\|ALIGNMENT CHANGES" private.adv &&
	grep -q "nothing worth changing" private.adv &&
	through turns --aggregate=advise=stats >turns.adv 2>&1 &&
	! grep -q "aligned(64)" turns.adv ||
	dt_show threads.adv private.adv turns.adv
'

dt_test 'without addresses (the plugin) the advice changes nothing and says how to confirm' '
	dt_perf_script perf -i threads.data --dlarg advise=stats >plug.adv 2>plug.err &&
	! grep -q "aligned(64)" plug.adv &&
	grep -q "not reordered: threads may share its objects" plug.adv &&
	grep -q "perf record -e cpu-clock --user-regs" plug.adv &&
	grep -q "dtresolve --aggregate=.advise=struct stats.$" plug.adv &&
	test $(grep -c "has sampled registers, which perf does not pass to a dlfilter" plug.err) = 1 ||
	dt_show plug.adv plug.err
'

dt_test 'the stat table gives the addresses'"'"' coverage and why the rest have none' '
	through threads --stat >/dev/null 2>stat.err &&
	grep -q "^# data addresses from sampled registers: [0-9]* of [0-9]* samples" stat.err &&
	grep -q "^#   no address, " stat.err || dt_show stat.err
'

# every struct stats answer with an address: the address less the offset
# is an object the program printed
dt_test 'computed addresses land on the objects the program used (0 wrong)' '
	for m in threads private turns; do
		through $m -f json >$m.json 2>/dev/null &&
		python3 "$DT_SRC/tests/addr-objects.py" $m $m.objects $m.json >>cover.txt ||
		return 1
	done
	cat cover.txt
	# per run: name, right, without an address, wrong
	awk "\$4 != 0 || \$2 == 0 || \$2 < 9 * \$3 { exit 1 }" cover.txt || dt_show cover.txt
'

# the same accesses run again under gdb: at each charged access, the
# addresses its operands touch (from gdb, not dtprof), then a step to the
# sampled instruction and dtresolve on its registers there
dt_test 'computed addresses match what gdb sees the instructions touch (0 wrong)' '
	DTRESOLVE=$DTRESOLVE sh "$DT_SRC/tests/addr-check.sh" threads.data ps 20 -- \
		./ps threads 3000000 >check.out 2>check.err ||
	dt_show check.out check.err
'
# a pointer chase ("mov 0x70(%rax),%rdx; lea -0x70(%rdx),%rax; cmp"): a
# sample on the cmp is charged to the load, whose base the lea changed,
# so it has no address.  The premise needs the cmp sampled (most samples
# land right after the slow load): a profile without is recorded again.
gcc -O2 -g -o lw "$DT_SRC/examples/listwalk/listwalk.c"
for try in 1 2 3 4 5; do
	perf record -q -N -e cpu-clock --user-regs -o lw.data -- ./lw 100000 40 >/dev/null 2>>rec.err
	through lw --stat >/dev/null 2>lw.stat
	grep -q "^#   no address, reg_changed: [0-9]" lw.stat && break
done
dt_test 'a pointer chase: no address where the base changed, none wrong' '
	grep -q "^#   no address, reg_changed: [0-9]" lw.stat &&
	DTRESOLVE=$DTRESOLVE sh "$DT_SRC/tests/addr-check.sh" lw.data lw 10 -- \
		./lw 20000 4 >lwcheck.out 2>lwcheck.err ||
	dt_show lw.stat lwcheck.out lwcheck.err
'
# refuting needs addresses for every field a thread touches much: here
# thread 12 reads b with addresses (another object than thread 11's a)
# and c without (as a pointer chase leaves them), so the flag stays
# suspected, not refuted
cat >cover.c <<'EOF'
struct s3 { long a, b, c; };
__attribute__((noinline)) void wa(struct s3 *s) { s->a = 1; }
__attribute__((noinline)) long rb(struct s3 *s) { return s->b; }
__attribute__((noinline)) long rc(struct s3 *s) { return s->c; }
struct s3 x, y;
int main(void) { wa(&x); return (int)(rb(&y) + rc(&y)); }
EOF
gcc -O2 -g -o cover cover.c
line() {	# line BINARY TID FUNC ADDR|- NS
	pc=$("$DTINSNS" $1 $3 | grep "(%rdi)" | cut -f1)
	start=0x$(nm $1 | awk -v f=$3 '$3 == f { print $1 }')
	addr=
	[ "$4" = - ] || addr=$(printf '%16x ' $4)
	printf 'p 1/%d 1.%09d: %s%16x %s+0x%x (%s)\n' $2 $5 "$addr" \
		$((0x555555554000 + pc)) $3 $((pc - start)) "$PWD/$1"
}
{ for k in 1 2 3 4 5 6; do line cover 11 wa 0x7ffd00001000 $((k * 1000)); done
  for k in 1 2 3 4 5 6; do line cover 12 rb 0x7ffd00002008 $((k * 1000 + 500)); done
  for k in 1 2 3 4; do line cover 12 rc - $((k * 1000 + 700)); done; } >cover.lines
dt_test 'a field a thread reads without addresses keeps the flag suspected, not refuted' '
	"$DTRESOLVE" --skid=off --aggregate=sharing cover.lines >cover.share 2>cover.err &&
	grep -q "^struct s3, cache line 0 .*: false sharing, suspected$" cover.share ||
	dt_show cover.lines cover.share cover.err
'

# one object, one writer and one reader, never met in the samples: set
# up by one thread, then used by the other (no interleaving, in samples
# enough that chance would order them so under one time in a thousand:
# eight and twelve, one in 63,000) is no sharing; both now and then all
# along (interleaved, a few samples a second) may be, and is not
# refuted; nor is an order of five samples, which chance gives one time
# in five (a busy machine's "seldom" run had three, then two), nor one
# of six and six (one time in 462)
{ for k in 1 2 3 4 5 6 7 8; do line cover 11 wa 0x7ffd00001000 $((k * 1000)); done
  for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
	line cover 12 rb 0x7ffd00001008 $((100000000 + k * 1000000))
  done
} >setup.lines
{ for k in 1 2 3 4 5 6; do line cover 11 wa 0x7ffd00001000 $((k * 50000000)); done
  for k in 1 2 3 4 5 6; do line cover 12 rb 0x7ffd00001008 $((400000000 + k * 50000000)); done
} >six.lines
{ for k in 1 2 3; do line cover 11 wa 0x7ffd00001000 $((k * 30000000)); done
  for k in 1 2; do line cover 12 rb 0x7ffd00001008 $((500000000 + k * 200000000)); done
} >few.lines
{ for k in 0 1 2; do
	line cover 11 wa 0x7ffd00001000 $((k * 300000000 + 1000))
	line cover 12 rb 0x7ffd00001008 $((k * 300000000 + 150000000))
  done; } >along.lines
dt_test 'set up by one thread, used by another: refuted; both all along, seldom: not' '
	"$DTRESOLVE" --skid=off --aggregate=sharing setup.lines >setup.share 2>&1 &&
	grep -q "^struct s3, cache line 0 .*: false sharing, refuted$" setup.share &&
	"$DTRESOLVE" --skid=off --aggregate=sharing along.lines >along.share 2>&1 &&
	grep -q "^struct s3, cache line 0 .*: false sharing, suspected$" along.share &&
	grep -q "^# 1 suspected with addresses: two threads in one real line" along.share ||
	dt_show setup.share along.share
'
dt_test 'orders chance gives (three then two samples, six then six): not refuted' '
	for o in few six; do
		"$DTRESOLVE" --skid=off --aggregate=sharing $o.lines >$o.share 2>&1 &&
		grep -q "^struct s3, cache line 0 .*: false sharing, suspected$" $o.share &&
		grep -q "^# 1 suspected with addresses: two threads in one real line" $o.share &&
		"$DTRESOLVE" --skid=off --aggregate=advise=s3 $o.lines >$o.adv 2>&1 &&
		grep -q "sampled too seldom there" $o.adv || { cat $o.share $o.adv; return 1; }
	done
'

# a writer sampled three times within a window, a reader half a second
# later, and the writer again within a window of the reader: they met
# once, too seldom to confirm sharing, but they were there at once, so
# nothing refutes it (a busy machine's "seldom" run had this order)
{ for k in 0 1 2; do line cover 11 wa 0x7ffd00001000 $((k * 5000000 + 1000)); done
  line cover 12 rb 0x7ffd00001008 500000000
  line cover 11 wa 0x7ffd00001000 505000000; } >once.lines
dt_test 'two threads that met once: suspected, not refuted, in the table and the advice' '
	"$DTRESOLVE" --skid=off --aggregate=sharing once.lines >once.share 2>&1 &&
	grep -q "^struct s3, cache line 0 .*: false sharing, suspected$" once.share &&
	grep -q "^# 1 suspected with addresses: two threads in one real line" once.share &&
	"$DTRESOLVE" --skid=off --aggregate=advise=s3 once.lines >once.adv 2>&1 &&
	grep -q "sampled too seldom there" once.adv ||
	dt_show once.lines once.share once.adv
'

# turns: a writer, then a reader, then the writer again, never within a
# window of each other.  Sampled there every millisecond, a thread silent
# for 26 ms has left (a hand-over): refuted.  Sampled every 8 ms, a
# silence of 15 ms is what a thread still there shows a third of the
# time: not refuted
{ for k in 0 1 2 3 4 5 6 7 8 9; do line cover 11 wa 0x7ffd00001000 $((k * 1000000 + 1000)); done
  for k in 0 1 2 3 4 5 6 7 8 9; do line cover 12 rb 0x7ffd00001008 $((25000000 + k * 1000000)); done
  line cover 11 wa 0x7ffd00001000 60000000; } >dense-turns.lines
{ for k in 0 1 2; do line cover 11 wa 0x7ffd00001000 $((k * 8000000 + 1000)); done
  for k in 0 1 2; do line cover 12 rb 0x7ffd00001008 $((31000000 + k * 8000000)); done
  line cover 11 wa 0x7ffd00001000 62000000; } >sparse-turns.lines
dt_test 'turns sampled densely: refuted; sampled too sparsely to show a thread left: not' '
	"$DTRESOLVE" --skid=off --aggregate=sharing dense-turns.lines >dense-turns.share 2>&1 &&
	grep -q "^struct s3, cache line 0 .*: false sharing, refuted$" dense-turns.share &&
	"$DTRESOLVE" --skid=off --aggregate=sharing sparse-turns.lines >sparse-turns.share 2>&1 &&
	grep -q "^struct s3, cache line 0 .*: false sharing, suspected$" sparse-turns.share &&
	"$DTRESOLVE" --skid=off --aggregate=advise=s3 sparse-turns.lines >sparse-turns.adv 2>&1 &&
	grep -q "sampled too seldom there" sparse-turns.adv ||
	dt_show dense-turns.share sparse-turns.share sparse-turns.adv
'

# a line keeps four threads: a fifth one's accesses, here the writer's,
# are not seen meeting the others', so they refute nothing, in the
# sharing table and in the advice
{ for k in 1 2 3 4 5 6; do
	for t in 11 12 13 14; do line cover $t rb 0x7ffd00001008 $((k * 1000 + t)); done
	line cover 15 wa 0x7ffd00001000 $((k * 1000 + 50))
  done; } >crowd.lines
dt_test 'a fifth thread in a line: its samples refute nothing' '
	"$DTRESOLVE" --skid=off --aggregate=sharing crowd.lines >crowd.share 2>crowd.err &&
	grep -q "^struct s3, cache line 0 .*, 5 threads: false sharing, suspected$" crowd.share &&
	grep -q "^# [0-9]* addressed samples past the real-line table" crowd.share &&
	"$DTRESOLVE" --skid=off --aggregate=advise=s3 crowd.lines >crowd.adv 2>&1 &&
	grep -q "not reordered: threads may share its objects" crowd.adv ||
	dt_show crowd.share crowd.err crowd.adv
'

# a real line keeps the meetings of four objects: a fifth object's are
# lost, and with them what would refute its type's flag
for i in 1 2 3 4 5; do
	printf 'struct t%d { long a, b; };\n' $i
	printf '__attribute__((noinline)) void w%d(struct t%d *s) { s->a = 1; }\n' $i $i
	printf '__attribute__((noinline)) long r%d(struct t%d *s) { return s->b; }\n' $i $i
done >five.c
echo 'int main(void) { return 0; }' >>five.c
gcc -O2 -g -o five five.c
{ for k in 1 2 3 4 5 6; do
	for i in 1 2 3 4 5; do
		base=$((0x7ffd00001000 + (i % 4) * 16))
		line five 11 w$i $base $((k * 10000 + i * 100))
		line five 12 r$i $((base + 8)) $((k * 10000 + i * 100 + 50))
	done
  done; } >five.lines
dt_test 'meetings past a line'"'"'s room: no flag refuted' '
	"$DTRESOLVE" --skid=off --aggregate=sharing five.lines >five.share 2>five.err &&
	grep -q "^# [0-9]* meetings past a real line'"'"'s room: no flag refuted$" five.share &&
	! grep -q ", refuted$" five.share &&
	grep -q "^struct t5, cache line 0 .*: false sharing, suspected$" five.share ||
	dt_show five.share five.err
'
dt_done
