#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dtresolve --aggregate=advise on a fixture whose structs use every C
# declarator form: the proposed definition compiles (gcc and clang), and
# gdb, reading the DWARF of a build that uses it, finds every member where
# the advice said it would be; the hot members share one cache line; the
# structs that cannot or need not change say so.  Type names as perf
# users type them: bare tag, full name, typedef, ambiguous, close.
. "$(dirname "$0")/lib.sh"
dt_require gdb

fixture=$DT_SRC/tests/fixtures/advise.c
funcs='touch_mixed touch_anon touch_packed touch_either touch_good touch_dups'

# Top-level members' bit offsets of TYPE in BINARY, as gdb lays them out
# ("/*     16: 3   |       4 */    unsigned int f : 9;": byte 16, bit 3).
gdb_bits() {
	gdb -batch -ex "ptype/o $2" "$1" 2>/dev/null |
		sed -n 's#^/\* *\([0-9][0-9]*\)\(: *\([0-9]*\)\)\{0,1\} *| *[0-9]* \*/    [^ ].*#\1 \3#p' |
		awk '{ print $1 * 8 + ($2 == "" ? 0 : $2) }'
}

for cc in $(dt_cc_list); do
	for opt in -O0 -O2; do
		bin=adv-$cc$opt
		$cc $opt -g -o $bin "$fixture"
		"$DTINSNS" $bin $funcs | cut -f1 >$bin.addrs
		for type in mixed anon_t; do
			def=$(echo $type | tr a-z A-Z | sed 's/_T$//')
			"$DTRESOLVE" -e $bin --aggregate=advise=$type <$bin.addrs >$bin.$type.h 2>$bin.err
			"$DTRESOLVE" -e $bin --aggregate=advise=$type --format=tsv <$bin.addrs \
				>$bin.$type.tsv 2>>$bin.err
			dt_test "$cc $opt, $type: the advice compiles, with the size it promises" "
				grep -q '^_Static_assert' $bin.$type.h &&
				mkdir -p $bin.$type && cp $bin.$type.h $bin.$type/advised.h &&
				$cc -O0 -g -DADVISED_$def -I$bin.$type -o $bin.$type.out '$fixture' ||
				dt_show $bin.$type.h $bin.err
			"
			gdb_type=$type
			[ $type = mixed ] && gdb_type='struct mixed'
			dt_test "$cc $opt, $type: gdb finds every member at the offset the advice gives" "
				awk -F'\t' 'NR > 1 { print \$3 }' $bin.$type.tsv >want &&
				gdb_bits $bin.$type.out '$gdb_type' >got &&
				test -s want && dt_cmp want got
			"
			dt_test "$cc $opt, $type: the hot members share cache line 0" "
				awk -F'\t' '\$7 == \"hot\" { print int(\$3 / 512) }' $bin.$type.tsv | sort -u >lines &&
				echo 0 >want && dt_cmp want lines &&
				test \$(awk -F'\t' '\$7 == \"hot\"' $bin.$type.tsv | wc -l) -ge 2
			"
		done
		dt_test "$cc $opt: struct mixed keeps its bitfields in order, the flexible array last" "
			awk -F'\t' 'NR > 1 { print \$2 }' $bin.mixed.tsv | tr '\n' ' ' >order &&
			grep -q 'small medium flags' order && grep -q 'tail \$' order || dt_show order
		"
	done
done

bin=adv-gcc-O2
dt_test 'a typedef of an anonymous struct is defined as a typedef' '
	grep -q "^typedef struct {" $bin.anon_t.h && grep -q "^} anon_t;" $bin.anon_t.h
'
advise() {
	"$DTRESOLVE" -e $bin --aggregate=advise="$1" <$bin.addrs
}
dt_test 'a packed struct is not reordered, and says why' '
	advise packed_one | grep -q "not reordered: packed"
'
dt_test 'a union is not reordered, and says why' '
	advise "union either" | grep -q "not reordered: a union"
'
dt_test 'one hot member in line 0: nothing worth changing' '
	advise already_good >good.h && grep -q "nothing worth changing" good.h &&
	! grep -q "^struct" good.h
'
dt_test 'in tsv, a struct with no proposal (refused or fine) has no rows' '
	for t in packed_one already_good; do
		"$DTRESOLVE" -e $bin --aggregate=advise=$t --format=tsv <$bin.addrs >t.tsv &&
		test $(wc -l <t.tsv) = 1 && grep -q "^type	member	new_bit" t.tsv || { cat t.tsv; return 1; }
	done
'
dt_test 'every advice is C: comments and definitions only' '
	"$DTRESOLVE" -e $bin --aggregate=advise <$bin.addrs >all.h &&
	grep -q "struct mixed {" all.h &&
	gcc -fsyntax-only -include stdlib.h -x c - <<-EOF || dt_show all.h
	struct peer { int id; };
	typedef unsigned long ulong_t;
	typedef long long_aligned_t __attribute__((aligned(16)));
	$(cat all.h)
	EOF
'

dt_test 'advise in json: every struct with its verdict or members' '
	"$DTRESOLVE" -e $bin --aggregate=advise --format=json <$bin.addrs >adv.json &&
	perl -MJSON::PP -e "
		my \$d = decode_json(join q(), <STDIN>);
		my %a = map { \$_->{type} => \$_ } @{\$d->{advice}};
		exit 1 unless \$a{q(struct mixed)} && @{\$a{q(struct mixed)}{members}} == 19;
		exit 1 unless \$a{q(anon_t)} && \$a{q(struct packed_one)}{verdict} =~ /packed/;
	" <adv.json || dt_show adv.json
'

# --- names as perf users type them ---
ann() {
	"$DTRESOLVE" -e $bin --aggregate=annotate="$1" <$bin.addrs 2>&1
}
dt_test 'annotate=mixed, struct mixed and the typedef mixed_t: one layout' '
	ann "struct mixed" >full && grep -q "^Annotate type: .struct mixed. " full &&
	ann mixed >tag && dt_cmp full tag &&
	ann mixed_t >td && dt_cmp full td
'
dt_test 'a name that is a tag and a typedef of another struct: both, and said' '
	ann dup >dup.txt &&
	grep "^.dup. matches more than one type: " dup.txt >note &&
	grep -q "struct dup" note && grep -q "struct other" note &&
	grep -q "^Annotate type: .struct dup. " dup.txt &&
	grep -q "^Annotate type: .struct other. " dup.txt || dt_show dup.txt
'
dt_test 'an unknown name lists the close ones' '
	ann mixd | grep -q "^No samples of type .mixd.. Close names: struct mixed\$"
'
dt_test '--aggregate=report takes no type' '
	dt_must_fail "$DTRESOLVE" -e $bin --aggregate=report=mixed </dev/null 2>err &&
	grep -q "takes no type" err
'
# --- a writer's line kept apart (threads from perf script's tid) ---
# A reader thread's parameters in line 0 and a writer thread's counter in
# line 1: packing the hot members into one line would put them together
# again (false sharing), so the answer is that nothing is worth changing;
# with the counter beside the parameters, it gets a line of its own.
cat >apart.c <<'EOF'
struct q {
	unsigned int quantum;
	unsigned int limit;
	unsigned long rate;
#ifdef APART
	unsigned long packets __attribute__((aligned(64)));
#else
	unsigned long packets;
#endif
	unsigned long spare[4];
};
struct q the_q = { 1, 2, 3 };
__attribute__((noinline)) unsigned long reader(struct q *q)
{
	return q->quantum + q->limit + q->rate;
}
__attribute__((noinline)) void writer(struct q *q)
{
	q->packets++;
}
int main(void)
{
	writer(&the_q);
	return (int)reader(&the_q);
}
EOF
# threads BINARY: the memory accesses of reader (thread 101, once each)
# and writer (thread 202, twice: the hottest member), as perf script
# -F pid,tid,time,ip,sym,symoff,dso,uregs prints them, with the_q's
# address in rdi (their argument): data addresses from the registers, one
# object the threads touch within a millisecond
threads() {
	q=0x$(nm $1 | awk '$3 == "the_q" { print $1 }')
	us=0
	"$DTINSNS" $1 reader writer | while read -r addr func insn; do
		case $insn in ret*) continue ;; esac
		start=0x$(nm $1 | awk -v f=$func '$3 == f { print $1 }')
		tid=101 times=1
		[ $func = writer ] && tid=202 times=2
		for k in $(seq $times); do
			us=$((us + 10))
			printf '1/%d 1.%06d:  %16x %s+0x%x (%s) ABI:2 DI:0x%x IP:0x%x\n' \
				$tid $us $((addr)) $func $((addr - start)) "$PWD/$1" \
				$((q)) $((addr))
		done
	done
}
for v in APART BESIDE; do
	gcc -O2 -g -D$v -o $v apart.c
	threads $v >$v.txt
	"$DTRESOLVE" --skid=off --aggregate=advise='struct q' <$v.txt >$v.h 2>$v.err
done
dt_test 'a writer already on a line of its own: nothing worth changing' '
	grep -q "^1/202 .* writer+0x" APART.txt && grep -q "^1/101 .* reader+0x" APART.txt &&
	grep -q "nothing worth changing" APART.h && ! grep -q "^struct" APART.h ||
	dt_show APART.txt APART.h APART.err
'
# the writer on an object of its own (its rdi a page on): the addresses
# show no object shared, so nothing keeps the writer apart; the same
# with the writer's samples without registers: too few addresses to
# say so, and the struct is left as it is
sed '/^1\/202 /s/DI:0x\([0-9a-f]*\)/DI:0x1\1/' APART.txt >OWN.txt
sed '/^1\/202 /s/ ABI:2 .*//' OWN.txt >PARTIAL.txt
for v in OWN PARTIAL; do
	"$DTRESOLVE" --skid=off --aggregate=advise='struct q' <$v.txt >$v.h 2>$v.err
done
dt_test 'objects of their own: packed; too few addresses to tell: left as it is' '
	! grep -q "a line of its own\|threads may share" OWN.h &&
	grep -q "cache lines with hot members: 2 -> 1" OWN.h &&
	grep -q "not reordered: threads may share its objects" PARTIAL.h ||
	dt_show OWN.txt OWN.h PARTIAL.h
'
dt_test 'the same writer beside the reader'"'"'s members: a line of its own' '
	grep -q "packets __attribute__((aligned(64)));	/\* +64 (was +16)" BESIDE.h ||
	dt_show BESIDE.h BESIDE.err
'
# The writer's counter beside the reader's members, and a member the
# reader thread reads seldom (cold: under 0.5% of the samples): with the
# reader's hot members filling line 0, the cold ones follow the writer's
# line, and the one another thread reads must not share it, where each
# read would meet the writer's stores again (seen in t4004 on a loaded
# run, whose advised build then shared a line).
cat >rare.c <<'EOF'
struct r {
	unsigned long packets;
	unsigned long p[8];
	unsigned long rare;
	unsigned long spare[2];
};
struct r the_r;
__attribute__((noinline)) unsigned long reader(struct r *r)
{
	return r->p[0] + r->p[1] + r->p[2] + r->p[3] + r->p[4] + r->p[5] + r->p[6] + r->p[7];
}
__attribute__((noinline)) void writer(struct r *r)
{
	r->packets++;
}
__attribute__((noinline)) unsigned long seldom(struct r *r)
{
	return r->rare;
}
int main(void)
{
	writer(&the_r);
	return (int)(reader(&the_r) + seldom(&the_r));
}
EOF
gcc -O2 -g -o rare rare.c
# reader's loads 30 times each (thread 101), the writer's 60 (thread
# 202), seldom's once (thread 101): rare has 1 sample of about 300
r=0x$(nm rare | awk '$3 == "the_r" { print $1 }')
us=0
"$DTINSNS" rare reader writer seldom | while read -r addr func insn; do
	case $insn in ret*) continue ;; esac
	start=0x$(nm rare | awk -v f=$func '$3 == f { print $1 }')
	case $func in reader) tid=101 times=30 ;; writer) tid=202 times=60 ;; *) tid=101 times=1 ;; esac
	for k in $(seq $times); do
		us=$((us + 1))
		printf '1/%d 1.%06d:  %16x %s+0x%x (%s) ABI:2 DI:0x%x IP:0x%x\n' \
			$tid $us $((addr)) $func $((addr - start)) "$PWD/rare" $((r)) $((addr))
	done
done >rare.txt
"$DTRESOLVE" --skid=off --aggregate=advise='struct r' --format=tsv <rare.txt >rare.tsv 2>rare.err
# the same read by a thread of another process: never a sharer
sed '/ seldom+/s/^1\//2\//' rare.txt >rare-proc.txt
"$DTRESOLVE" --skid=off --aggregate=advise='struct r' --format=tsv <rare-proc.txt \
	>rare-proc.tsv 2>rare-proc.err
dt_test 'a cold member another thread reads stays out of the writer'"'"'s line' '
	pk=$(awk -F"\t" "\$2 == \"packets\" { print int(\$3 / 512) }" rare.tsv) &&
	rl=$(awk -F"\t" "\$2 == \"rare\" { print int(\$3 / 512), \$7 }" rare.tsv) &&
	test -n "$pk" && test "$pk" != 0 && test "${rl#* }" = cold &&
	test "${rl% *}" != "$pk" || dt_show rare.tsv rare.err
'
dt_test 'one another process reads may follow the writer'"'"'s line' '
	grep -q "^2/101 .* seldom+" rare-proc.txt &&
	pk=$(awk -F"\t" "\$2 == \"packets\" { print int(\$3 / 512) }" rare-proc.tsv) &&
	rl=$(awk -F"\t" "\$2 == \"rare\" { print int(\$3 / 512) }" rare-proc.tsv) &&
	test -n "$pk" && test "$rl" = "$pk" || dt_show rare-proc.tsv rare-proc.err
'
# --- a struct the program does not define: never reordered ---
cat >sysfile.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) long pending(FILE *f)
{
	return f->_IO_write_ptr - f->_IO_write_base;
}
int main(void)
{
	return (int)pending(stdout);
}
EOF
gcc -O2 -g -o sysfile sysfile.c
"$DTINSNS" sysfile pending | grep "(%rdi)" | cut -f1 >sysfile.addrs
for k in 1 2 3 4 5; do cat sysfile.addrs; done >sysfile.lines
dt_test 'a struct of a system header (FILE): not reordered, and said why' '
	test -s sysfile.addrs &&
	"$DTRESOLVE" -e sysfile --aggregate=advise <sysfile.lines >sysfile.h 2>sysfile.err &&
	grep -q "dtprof advice for struct _IO_FILE" sysfile.h &&
	grep -q "not reordered: defined in a system header" sysfile.h &&
	! grep -q "^struct _IO_FILE {" sysfile.h ||
	dt_show sysfile.h sysfile.err
'
# --- a common header (Lua's CommonHeader): it stays first ---
cat >header.c <<'EOF'
#define HEADER struct gcobj *next; unsigned char tt; unsigned char marked
struct gcobj { HEADER; };
struct state {
	HEADER;
	long cold[10];
	long hot_a;
	long cold2[4];
	long hot_b;
};
struct state the_state;
__attribute__((noinline)) long use(struct state *s)
{
	return s->hot_a + s->hot_b;
}
__attribute__((noinline)) int mark(struct gcobj *o)
{
	return o->marked;
}
int main(void)
{
	return (int)use(&the_state) + mark((struct gcobj *)&the_state);
}
EOF
gcc -O2 -g -o header header.c
"$DTINSNS" header use | grep "(%rdi)" | cut -f1 >header.addrs
dt_test 'a header another struct starts with stays first, in order; the hot members follow it' '
	test -s header.addrs && for k in 1 2 3 4 5 6; do cat header.addrs; done |
		"$DTRESOLVE" -e header --aggregate=advise=state >header.h 2>header.err &&
	grep -A4 "^struct state {" header.h | sed -n "2,5p" | sed "s/^	//; s/	.*//" >got &&
	printf "%s\n" "/* a header another struct starts with too: stays first */" \
		"struct gcobj *next;" "unsigned char tt;" "unsigned char marked;" >want &&
	dt_cmp want got &&
	grep -q "long int hot_a;	/\* +16 (was +96)" header.h ||
	dt_show header.h header.err
'
# --- co-access: members read in the same function share a line ---
# a is the hottest, then c, b, d; f1 reads a and b, f2 reads c and d:
# hottest first would put a with c; co-access puts a with b, c with d
cat >co.c <<'EOF'
struct rec {
	char a[24];
	char pad1[64];
	char c[24];
	char pad2[64];
	char b[24];
	char pad3[64];
	char d[24];
};
__attribute__((noinline)) int f1(struct rec *r) { return r->a[0] + r->b[0]; }
__attribute__((noinline)) int f2(struct rec *r) { return r->c[0] + r->d[0]; }
struct rec the_rec;
int main(void) { return f1(&the_rec) + f2(&the_rec); }
EOF
gcc -O2 -g -o co co.c
"$DTINSNS" co f1 f2 | grep "(%rdi)" | cut -f1 >co.addrs
dt_test 'co-access: the members one function reads together share a line' '
	test $(wc -l <co.addrs) = 4 &&
	{ for i in $(seq 40); do sed -n 1p co.addrs; done
	  for i in $(seq 20); do sed -n 2p co.addrs; done
	  for i in $(seq 30); do sed -n 3p co.addrs; done
	  for i in $(seq 10); do sed -n 4p co.addrs; done; } >co.lines &&
	"$DTRESOLVE" -e co --skid=off --aggregate=advise=rec <co.lines >co.h 2>co.err &&
	grep -q "read in the same functions share lines (co-access)" co.h &&
	sed -n "/^struct rec {/,/cold/p" co.h | grep -o "char [a-d]\[" | sed "s/char \(.\).*/\1/" | tr -d "\n" >order &&
	test "$(cat order)" = abcd || dt_show co.h order
'
# the same struct with data addresses and ns times, as precise memory
# events give them: one thread reads a then c within 100 ns (20 times),
# b then d (10 times); co-access in time pairs a with c, b with d, though
# f1 reads a and b and heat ranks a, b, c, d
f1=0x$(nm co | awk '$3 == "f1" { print $1 }') f2=0x$(nm co | awk '$3 == "f2" { print $1 }')
timed() {	# timed MEMBER NS: one sample line of that member's access
	case $1 in
	a) pc=$(sed -n 1p co.addrs) fn=f1 start=$f1 off=0 ;;
	b) pc=$(sed -n 2p co.addrs) fn=f1 start=$f1 off=176 ;;
	c) pc=$(sed -n 3p co.addrs) fn=f2 start=$f2 off=88 ;;
	d) pc=$(sed -n 4p co.addrs) fn=f2 start=$f2 off=264 ;;
	esac
	printf 'co 7/7 %d.%09d: %16x %16x %s+0x%x (%s)\n' $(($2 / 1000000000)) \
		$(($2 % 1000000000)) $((0x7ffd00010000 + off)) $((0x555555554000 + pc)) \
		$fn $((pc - start)) "$PWD/co"
}
t=1000000000
{ for i in $(seq 20); do timed a $t; timed c $((t + 100)); t=$((t + 1000000)); done
  for i in $(seq 10); do timed b $t; timed d $((t + 100)); t=$((t + 1000000)); done
  for i in $(seq 20); do timed a $t; t=$((t + 1000000)); done
  for i in $(seq 20); do timed b $t; t=$((t + 1000000)); done; } >co-timed.lines
dt_test 'co-access in time (data addresses): members one thread reads within 1 us share a line' '
	"$DTRESOLVE" --skid=off --aggregate=advise=rec co-timed.lines >co-timed.h 2>co-timed.err &&
	grep -q "one thread reads together on one object (within 1 us) share lines" co-timed.h &&
	sed -n "/^struct rec {/,/cold/p" co-timed.h | grep -o "char [a-d]\\[" |
		sed "s/char \\(.\\).*/\\1/" | tr -d "\\n" >order-timed &&
	test "$(cat order-timed)" = acbd || dt_show co-timed.h order-timed co-timed.err
'
# --- a struct of a system library (glibc's malloc_chunk, libc6-dbg's
# DWARF): never reordered; the same library in a directory of its own,
# as a program ships its libraries, is the program's ---
libc=$(ldd "$DTRESOLVE" | awk '$1 ~ /^libc\.so/ { print $3 }')
"$DTINSNS" "$libc" _int_free 2>/dev/null | grep "(" | cut -f1 >libc.addrs
mkdir -p own && cp "$libc" own/libc.so.6
dt_test 'a struct of a system library: not reordered, said why; the same file elsewhere is advised' '
	test -s libc.addrs &&
	"$DTRESOLVE" -e "$libc" --aggregate=advise=malloc_chunk <libc.addrs >libc.h 2>libc.err &&
	grep -q "not reordered: defined in a system library" libc.h &&
	"$DTRESOLVE" -e own/libc.so.6 --aggregate=advise=malloc_chunk <libc.addrs >own.h 2>own.err &&
	grep -q "dtprof advice for struct malloc_chunk" own.h &&
	! grep -q "system library" own.h ||
	dt_show libc.h libc.err own.h own.err
'
# --- a hot/cold split: said with its cost, and only where it can pay ---
cat >split.c <<'EOF'
struct big { long hot; char cold[240]; long warm; };
__attribute__((noinline)) long use(struct big *b) { return b->hot + b->warm; }
struct big the_big;
int main(void) { return (int)use(&the_big); }
EOF
gcc -O2 -g -o split split.c
"$DTINSNS" split use | grep "(%rdi)" | cut -f1 >split.addrs
dt_test 'a hot part of one line and a large cold part: a split proposed, with its cost' '
	for k in 1 2 3 4; do cat split.addrs; done |
		"$DTRESOLVE" -e split --aggregate=advise=big >split.h 2>split.err &&
	grep -q "^ \* hot/cold split: the hot members take 16 bytes; the other 240 bytes behind a pointer$" split.h &&
	grep -q "would make each object 24 bytes (hot part + 8)" split.h &&
	grep -q "worth it only with many such objects" split.h || dt_show split.h split.err
'
dt_done
