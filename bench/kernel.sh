#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dtresolve on a kernel: Debian's vmlinux with full DWARF (the
# linux-image-*-amd64-dbg package, about 860 MB to download, 633 MB
# vmlinux; fetched once into WORKDIR, only when this is asked for).
#   - 100,000 distinct memory instructions of a quarter of the kernel's
#     functions (every fourth text symbol): CPU time, wall, peak RSS and
#     what share is attributed;
#   - per-CPU accesses ("%gs:0x1fb80", "%gs:0x7ede1629(%rip)"): each
#     answer's variable checked against the symbol table's per-CPU
#     symbol at that offset (right / wrong / unknown);
#   - two modules (ext4, sch_fq; the package's debug modules hold their
#     code): every memory instruction, and each rip-relative access's
#     variable checked against the module's relocation there;
#   - the DIE walk of lib/dwarf/children.c against libdw's, every DIE;
#   - the quick decoder against libopcodes, every instruction, and the
#     100,000 answers without it;
#   - what each call site of kmalloc and its kin proves of its block,
#     against the size it asks for (bench/alloc-sites.py);
#   - the kernel's heap end to end on the vmlinux's code: a kmem: event
#     at a real call site, and a memset sample in its block.
#   kernel.sh BUILD WORKDIR
set -eu
# naming is what is measured: no answers kept by an earlier run read
DTPROF_NO_ANSWERS=1
export DTPROF_NO_ANSWERS
build=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
cd "$work"

# the modules checked: a large one and the qdisc of the false-sharing story
modules="kernel/fs/ext4/ext4.ko kernel/net/sched/sch_fq.ko"
vmlinux=$(ls usr/lib/debug/boot/vmlinux-* 2>/dev/null | head -n 1 || true)
if [ -z "$vmlinux" ] || [ ! -s "usr/lib/debug/lib/modules/${vmlinux##*vmlinux-}/kernel/net/sched/sch_fq.ko" ]; then
	pkg=$(apt-cache depends linux-image-amd64-dbg 2>/dev/null |
	      sed -n 's/.*Depends: \(linux-image-[0-9].*-dbg\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || { echo "kernel.sh: no linux-image-*-amd64-dbg package in apt's lists" >&2; exit 1; }
	if ! ls "$pkg"_*.deb >/dev/null 2>&1; then
		echo "kernel.sh: downloading $pkg (about 860 MB, once)" >&2
		apt-get download "$pkg" >/dev/null
	fi
	dpkg --fsys-tarfile "$pkg"_*.deb | tar -x --wildcards './usr/lib/debug/boot/vmlinux-*' \
		$(for m in $modules; do echo "./usr/lib/debug/lib/modules/*/$m"; done)
	rm -f "$pkg"_*.deb
	vmlinux=$(ls usr/lib/debug/boot/vmlinux-* | head -n 1)
fi
echo "vmlinux: $vmlinux ($(du -h "$vmlinux" | cut -f1))"

if [ ! -s mem100k ]; then
	nm --defined-only "$vmlinux" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u |
		awk 'NR % 4 == 0' >syms
	"$build/tests/dtinsns" "$vmlinux" $(cat syms) 2>/dev/null >insns || true
	grep -v '	lea\|	nop' insns | grep '(\|%gs:' | cut -f1 | sort -u |
		head -n 100000 >mem100k
	grep '%gs:' insns | grep -v '%gs:0x28' | cut -f1 | sort -u >percpu
fi

t0=$(date +%s.%N)
/usr/bin/time -f '%U %S %M' -o rss "$build/dtresolve" --stat -e "$vmlinux" mem100k \
	>mem100k.out 2>mem100k.stat
t1=$(date +%s.%N)
read -r user sys kb <rss
resolved=$(awk '$1 == "resolved" { print $2 " (" $3 "%)" }' mem100k.stat)
echo "$(wc -l <mem100k) memory instructions: $(echo "$user + $sys" | bc -l | xargs printf '%.2f') s CPU," \
	"$(echo "$t1 - $t0" | bc -l | xargs printf '%.2f') s wall, peak RSS $((kb / 1024)) MB, resolved $resolved"
# the same with libopcodes decoding every instruction (the quick
# decoder off): what arch/x86_64_quick.c saves, and the same answers
/usr/bin/time -f '%U %S %M' -o rss env DTPROF_NO_QUICK_DECODE=1 \
	"$build/dtresolve" --stat -e "$vmlinux" mem100k >slow.out 2>/dev/null
read -r user sys kb <rss
echo "  without the quick decoder (DTPROF_NO_QUICK_DECODE=1): $(echo "$user + $sys" | bc -l | xargs printf '%.2f') s CPU," \
	"answers $(cmp -s slow.out mem100k.out && echo the same || echo DIFFERENT)"

# per-CPU: the variable named against the per-CPU symbol at the offset
"$build/dtresolve" -v -e "$vmlinux" percpu >percpu.out 2>/dev/null
nm -S "$vmlinux" | awk 'NF == 4 && $1 ~ /^00000000000/ && $3 ~ /^[dDbB]$/' >percpu.syms
perl -e '
	my (%text, %next, @syms);
	open my $in, "<", "insns" or die;
	my ($prev, $prevfn);
	while (<$in>) {
		chomp; my ($pc, $fn, $t) = split /\t/;
		$next{$prev} = hex($pc) if defined $prev && $prevfn eq $fn;
		$text{$pc} = $t; ($prev, $prevfn) = ($pc, $fn);
	}
	open my $s, "<", "percpu.syms" or die;
	while (<$s>) { my ($a, $z, $t, $n) = split; push @syms, [hex($a), hex($z), $n]; }
	@syms = sort { $a->[0] <=> $b->[0] } @syms;
	my ($right, $wrong, $unknown, $untold) = (0, 0, 0, 0);
	my ($ptr, $ptr_named) = (0, 0);
	open my $o, "<", "percpu.out" or die;
	while (<$o>) {
		chomp; my @f = split /\t/; my $pc = $f[0];
		# "%gs:0x18(%rdx)": through a per-CPU pointer, whose type (not
		# the symbol table) says what is there
		if ($text{$pc} =~ /%gs:(-?0x[0-9a-f]+)?\(%r(?!ip)/) {
			$ptr++; $ptr_named++ if $f[1] ne "(unknown)"; next;
		}
		if ($f[1] eq "(unknown)") { $unknown++; next; }
		my ($d, $rip) = $text{$pc} =~ /%gs:(-?0x[0-9a-f]++)(\(%rip\))?(?!\(%r)/ or do { $untold++; next; };
		$d = $d =~ /^-/ ? -hex(substr($d, 1)) : hex($d);
		if ($rip) {	# 64-bit wrap-around, not floating point
			defined $next{$pc} or do { $untold++; next; };
			use integer; $d = $next{$pc} + $d;
		}
		my ($truth) = map { $_->[2] } grep { $d >= $_->[0] && $d < $_->[0] + ($_->[1] || 1) } @syms;
		if (!defined $truth) { $untold++; next; }
		if ($f[5] eq $truth) { $right++ } else { $wrong++; print STDERR "wrong: $pc $text{$pc}: $f[5], symbol $truth\n" }
	}
	printf "per-CPU accesses at an offset: %d: %d right, %d wrong, %d unknown, %d not checkable\n",
		$right + $wrong + $unknown + $untold, $right, $wrong, $unknown, $untold;
	printf "per-CPU accesses through a pointer (%%gs:0x18(%%rdx), this_cpu_ptr): %d, %d named by the pointer'"'"'s type\n",
		$ptr, $ptr_named;
'
# kernel modules (Debian's debug modules hold their code too): every
# memory instruction of every function, and each rip-relative access
# checked against the module's own relocations
for m in $modules; do
	ko=usr/lib/debug/lib/modules/${vmlinux##*vmlinux-}/$m
	name=$(basename "$m" .ko)
	readelf -sW "$ko" | awk '$4 == "FUNC" && $7 ~ /^[0-9]+$/ { print $8 }' | sort -u >$name.fns
	"$build/tests/dtinsns" "$ko" $(cat $name.fns) 2>/dev/null >$name.insns || true
	grep -v '	lea\|	nop' $name.insns | grep '(' | cut -f1 >$name.mem
	/usr/bin/time -f '%U %S %M' -o rss "$build/dtresolve" --stat -v -e "$ko" $name.mem \
		>$name.out 2>$name.stat
	read -r user sys kb <rss
	resolved=$(awk '$1 == "resolved" { print $2 " (" $3 "%)" }' $name.stat)
	echo "module $name: $(wc -l <$name.mem) memory instructions:" \
		"$(echo "$user + $sys" | bc -l | xargs printf '%.2f') s CPU, peak RSS $((kb / 1024)) MB, resolved $resolved"
	printf '  '
	perl "$here/module-relocs.pl" "$ko" $name.insns $name.out
done
rm -f rss

# the quick decoder against libopcodes on every instruction of the
# vmlinux and the two modules (tests/unit-quick; t2021 runs it on builds
# of gcc and clang)
if [ -x "$build/tests/unit-quick" ]; then
	"$build/tests/unit-quick" "$vmlinux" $(for m in $modules; do
		echo "usr/lib/debug/lib/modules/${vmlinux##*vmlinux-}/$m"; done) >quick.out 2>&1 || true
	printf 'quick decoder against libopcodes: %s\n' \
		"$(grep -c '^ok' quick.out) ok, $(grep -c '^not ok' quick.out) not ok"
	sed -n 's/^\(not \)\{0,1\}ok [0-9]* - .*\/\([^/:]*\): \([0-9]* instructions, \)/  \2: \3/p' quick.out |
		grep -v 'cut short'
	sed -n 's/^# .*\/\(vmlinux[^/:]*\): libopcodes/  \1: libopcodes/p' quick.out
fi

# children.c's walk of the DIEs against libdw's, on every DIE of every
# unit of the vmlinux (tests/unit-children: the same DIEs, tags and
# attributes; the test itself runs on builds of every compiler in t2018)
if [ -x "$build/tests/unit-children" ]; then
	"$build/tests/unit-children" "$vmlinux" >children.out 2>&1 || true
	printf 'DIE walk against libdw on the vmlinux: %s\n' \
		"$(grep -c '^ok' children.out) ok, $(grep -c '^not ok' children.out) not ok"
	sed -n 's/^\(not \)\{0,1\}ok [0-9]* - .*vmlinux[^:]*: /  /p' children.out
fi

# what kmalloc's and kmem_cache_alloc's call sites prove (the type of the
# variable the block goes to), against the size each asks for where it is
# a constant: a block smaller than the type would be a wrong answer
if [ -x "$build/tests/dtsite" ]; then
	printf 'allocation sites of the vmlinux (bench/alloc-sites.py): '
	python3 "$here/alloc-sites.py" "$build/tests/dtsite" "$vmlinux" 2>sites.err || true
	sed 's/^/  /' sites.err
fi

# the kernel's heap end to end, on the vmlinux's own code: a kmem: event
# at __alloc_file's call of kmem_cache_alloc (perf script's text, with
# the symbol and offset perf prints), then a sample of memset_orig's
# store with the registers of a kernel sample, its data address 8 bytes
# into the block: typed by address as the site's struct file there; the
# same sample after the block's free: not
regs() {	# regs DI IP: perf script -F iregs' text
	printf 'ABI:2    AX:0x0    BX:0x0    CX:0x0    DX:0x0    SI:0x0    DI:%s    BP:0x0    SP:0xffffc90000000000    IP:%s    R8:0x0    R9:0x0   R10:0x0   R11:0x0   R12:0x0   R13:0x0   R14:0x0   R15:0x0' "$1" "$2"
}
site=$(nm "$vmlinux" | awk '$3 == "__alloc_file" { print $1; exit }')
store=$(objdump -d --no-show-raw-insn --disassemble=memset_orig "$vmlinux" |
	awk '/mov +%rax,0x8\(%rdi\)/ { sub(":", "", $1); print $1; exit }')
call=$(objdump -d --no-show-raw-insn --disassemble=__alloc_file "$vmlinux" |
	awk '/call.*<kmem_cache_alloc>/ { getline; sub(":", "", $1); print $1; exit }')
if [ -n "$site" ] && [ -n "$store" ] && [ -n "$call" ]; then
	# (the low 32 bits: the shell's arithmetic is signed 64-bit)
	mset=$(nm "$vmlinux" | awk '$3 == "memset_orig" { print $1; exit }')
	off=$(printf '%x' $((0x${call#????????} - 0x${site#????????})))
	soff=$(printf '%x' $((0x${store#????????} - 0x${mset#????????})))
	{
		echo "  cat 100/100 1.000000000: kmem:kmem_cache_alloc: call_site=__alloc_file+0x$off ptr=0xffff888100010000 name=filp bytes_req=232 bytes_alloc=256 ffffffff8132bb10 kmem_cache_alloc+0x0 ([kernel.kallsyms])"
		echo "  cat 100/100 1.000000100:   cpu-clock:  $store memset_orig+0x$soff ([kernel.kallsyms]) $(regs 0xffff888100010000 0x$store)"
		echo "  cat 100/100 1.000000200: kmem:kmem_cache_free: call_site=__fput+0x1 ptr=0xffff888100010000 name=filp ffffffff8132bb10 kmem_cache_free+0x0 ([kernel.kallsyms])"
		echo "  cat 100/100 1.000000300:   cpu-clock:  $store memset_orig+0x$soff ([kernel.kallsyms]) $(regs 0xffff888100010000 0x$store)"
	} >kheap.txt
	"$build/dtresolve" --vmlinux="$vmlinux" --skid=off -f perf kheap.txt 2>/dev/null |
		grep -v "(allocator)" >kheap.out || true
	printf 'kernel heap: memset_orig in a struct file block: %s; after its free: %s\n' \
		"$(sed -n 1p kheap.out)" "$(sed -n 2p kheap.out)"
fi
