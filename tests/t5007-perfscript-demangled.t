#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# C++ and Rust names as perf script prints them, demangled without
# parameters ("ns::Table::scan+0x2a", "walk::table::Table::scan+0x26"):
# dtresolve answers every line as it does for perf script --no-demangle,
# two C++ overloads told apart by the sample's address, and an overload
# nothing tells apart answered unknown, never guessed.
. "$(dirname "$0")/lib.sh"
dt_require g++
dt_require_perf_record

# same_as_mangled DATA: demangled and mangled lines, the same answers
same_as_mangled() {
	perf script -i $1 -F ip,sym,symoff,dso 2>/dev/null >dem.txt &&
	perf script -i $1 -F ip,sym,symoff,dso --no-demangle 2>/dev/null >man.txt &&
	"$DTRESOLVE" dem.txt 2>/dev/null | cut -f2- >got &&
	"$DTRESOLVE" man.txt 2>/dev/null | cut -f2- >want &&
	test $(wc -l <want) -gt 100 && dt_cmp want got
}

g++ -O2 -g -o ovl "$DT_SRC/tests/fixtures/overloads.cc"
dt_test 'C++: recorded with cpu-clock' '
	perf record -q -e cpu-clock -o ovl.data ./ovl 20000 >/dev/null 2>&1
'
dt_test 'C++: ns::Table::scan+0xOFF of two overloads resolves as the mangled names do' '
	same_as_mangled ovl.data && grep -q " ns::Table::scan+0x" dem.txt &&
	"$DTRESOLVE" -f perf dem.txt 2>/dev/null | grep -q "(rows\[0\].hits)" &&
	"$DTRESOLVE" -f perf dem.txt 2>/dev/null | grep -q "(rows\[0\].key)"
'
# both overloads fit a small offset; an address at neither one's place in
# a page tells them apart no more than no address would
pages=$(nm ovl | sed -n 's/^0*\([0-9a-f]*\) T _ZNK2ns5Table4scan.*/\1/p' |
	while read a; do echo $((0x$a % 4096)); done | sort -u | tr '\n' ' ')
other=0
while echo " $pages" | grep -q " $other "; do other=$((other + 16)); done
dt_test 'an overload nothing tells apart: unknown, not a guess' '
	test $(echo $pages | wc -w) = 2 &&
	printf " %16x ns::Table::scan+0x10 ($PWD/ovl)\n" $((0x7f0000000000 + other + 16)) >line &&
	"$DTRESOLVE" -v line >out 2>err && grep -q "	no_insn	sym$" out &&
	grep -q "fits several symbols (overloads)" err || dt_show line out err
'

rustc=$(command -v rustc || echo "$HOME/.cargo/bin/rustc")
if [ -x "$rustc" ]; then
	cat >walk.rs <<-EOF
	mod table {
	    pub struct Row { pub key: u64, pub hits: u64 }
	    pub struct Table { pub rows: Vec<Row> }
	    impl Table {
	        #[inline(never)]
	        pub fn scan(&self, k: u64) -> u64 { self.rows.iter().filter(|r| r.key == k).count() as u64 }
	    }
	}
	fn main() {
	    let n: u64 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(1000);
	    let t = table::Table { rows: (0..4096).map(|i| table::Row { key: i, hits: 0 }).collect() };
	    let mut s = 0;
	    for i in 0..n { s += t.scan(i); }
	    println!("{}", s + t.rows[0].hits);
	}
	EOF
	"$rustc" -O -g -o walk walk.rs 2>/dev/null
	dt_test 'Rust: walk::table::Table::scan+0xOFF resolves as the mangled name does' '
		perf record -q -e cpu-clock -o rs.data ./walk 100000 >/dev/null 2>&1 &&
		same_as_mangled rs.data && grep -q " walk::table::Table::scan+0x" dem.txt &&
		"$DTRESOLVE" -v dem.txt 2>/dev/null >out &&
		awk -F"\t" "\$5 ~ /walk\$/" out | grep -q . &&
		! awk -F"\t" "\$5 ~ /walk\$/ && \$7 == \"no_insn\"" out | grep -q . || dt_show out
	'
elif [ "${DT_TEST_STRICT:-0}" = 1 ]; then
	dt_test 'rustc is installed (DT_TEST_STRICT=1)' false
fi
dt_done
