#!/usr/bin/perl
# SPDX-License-Identifier: GPL-3.0-or-later
# module-relocs.pl MODULE INSNS ANSWERS: each rip-relative access's
# variable (dtresolve -v's ANSWERS for dtinsns' INSNS) against the
# relocation the kernel's module loader applies at that instruction: the
# object symbol at the relocation's target is the truth, or for a symbol
# the module does not define (the kernel's, another module's) the
# relocation's symbol itself.
use strict;
use warnings;
my ($ko, $insf, $outf) = @ARGV;
my (%secsize, @syms, %symidx);
open my $S, "-|", "readelf", "-SW", $ko or die;
while (<$S>) { $secsize{$1} = hex($2) if /^\s*\[\s*(\d+)\]\s+\S+\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)/; }
open my $Y, "-|", "readelf", "-sW", $ko or die;
while (<$Y>) {
	my @f = split;
	next unless @f >= 8 && $f[0] =~ /^(\d+):$/;
	push @syms, { v => hex($f[1]), z => $f[2] =~ /^0x/ ? hex($f[2]) : $f[2], t => $f[3], ndx => $f[6], n => $f[7] };
}
my %byname; for (@syms) { $byname{$_->{n}} //= $_ if $_->{ndx} ne "UND" || !exists $byname{$_->{n}}; }
# section bases from functions
my (%first, %text);
open my $I, "<", $insf or die;
my @ins;
while (<$I>) { chomp; my ($pc, $fn, $t) = split /\t/; push @ins, [hex($pc), $fn, $t]; $first{$fn} //= hex($pc); }
my %base;
for my $s (@syms) { next unless $s->{t} eq "FUNC" && $s->{ndx} =~ /^\d+$/ && exists $first{$s->{n}}; $base{$s->{ndx}} //= $first{$s->{n}} - $s->{v}; }
# relocations, by section index they apply to
my (%rel, $cur);
my %secidx; open $S, "-|", "readelf", "-SW", $ko or die;
while (<$S>) { $secidx{$2} = $1 if /^\s*\[\s*(\d+)\]\s+(\S+)/; }
open my $R, "-|", "readelf", "-rW", $ko or die;
while (<$R>) {
	if (/Relocation section '\.rela(\S+)'/) { $cur = $secidx{$1}; next; }
	next unless defined $cur && /^([0-9a-f]{16})\s+[0-9a-f]+\s+(R_X86_64_\S+)\s+(?:([0-9a-f]+)\s+(\S+)\s*([+-])\s*([0-9a-f]+))?/;
	push @{$rel{$cur}}, { off => hex($1), type => $2, sym => $4 // "", add => defined $5 ? ($5 eq "-" ? -hex($6) : hex($6)) : 0 };
}
for (values %rel) { @$_ = sort { $a->{off} <=> $b->{off} } @$_; }
my %ans; open my $O, "<", $outf or die;
while (<$O>) { chomp; my @f = split /\t/; $ans{hex($f[0])} = [$f[1], $f[5] // "", $f[6] // ""]; }
my ($right, $wrong, $unknown, $extern_unknown, $extern_named, $untold) = (0) x 6;
for my $i (0 .. $#ins - 1) {
	my ($pc, $fn, $t) = @{$ins[$i]};
	next unless $t =~ /\(%rip\)/ && exists $ans{$pc};
	my $next = $ins[$i + 1][0];
	next unless $ins[$i + 1][1] eq $fn;
	my ($sec) = grep { $pc >= $base{$_} && $pc < $base{$_} + ($secsize{$_} // 0) } keys %base;
	defined $sec or do { $untold++; next };
	my @r = grep { $_->{off} >= $pc - $base{$sec} && $_->{off} < $next - $base{$sec} } @{$rel{$sec} // []};
	@r == 1 or do { $untold++; next };
	my $r = $r[0];
	my $got = $ans{$pc};
	my $s = $byname{$r->{sym}};
	if (!$s || $s->{ndx} eq "UND") {	# the kernel's: named by its declaration
		if ($got->[0] eq "(unknown)") { $extern_unknown++ }
		elsif ($got->[1] eq $r->{sym}) { $extern_named++ }
		else { $wrong++; print STDERR "wrong: $fn $t: $got->[1], relocation $r->{sym}\n" }
		next;
	}
	$r->{type} =~ /PC32|PLT32/ or do { $untold++; next };
	my $tsec = $s->{ndx};
	my $toff = $s->{v} + $r->{add} + ($next - ($base{$sec} + $r->{off}));
	# a sized object first (a zero-sized lock_class_key shares its address)
	my ($truth) = map { $_->{n} } sort { ($b->{z} > 0) <=> ($a->{z} > 0) }
		grep { $_->{ndx} eq $tsec && $_->{t} eq "OBJECT" && $toff >= $_->{v} && $toff < $_->{v} + ($_->{z} || 1) } @syms;
	$truth =~ s/\.\d+$// if defined $truth;	# gcc's name.N for a function's static
	defined $truth or do { $untold++; next };
	if ($got->[0] eq "(unknown)") { $unknown++; next }
	if ($got->[1] eq $truth) { $right++ } else { $wrong++; print STDERR "wrong: $fn $t: $got->[1], relocation $truth\n" }
}
printf "rip-relative accesses: %d wrong; to the module's variables %d right, %d unknown; to the kernel's %d right, %d unknown; %d not checkable\n",
	$wrong, $right, $unknown, $extern_named, $extern_unknown, $untold;
