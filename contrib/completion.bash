# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for dtresolve, and for dtplugin.so's --dlarg values in
# perf script (completing after "--dlarg").

_dtresolve()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	-e|--exe) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-f|--format) COMPREPLY=($(compgen -W "tsv perf json" -- "$cur")); return ;;
	--debuginfo-path|--debug-dir|--source-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--vmlinux) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	case $cur in
	--format=*) COMPREPLY=($(compgen -W "tsv perf json" -- "${cur#--format=}")); return ;;
	--aggregate=*) COMPREPLY=($(compgen -W "report annotate annotate= sharing sharing= advise advise= code= stat objects html" -- "${cur#--aggregate=}")); return ;;
	--sort=*) COMPREPLY=($(compgen -W "samples period weight" -- "${cur#--sort=}")); return ;;
	-*)
		COMPREPLY=($(compgen -W "--exe= --format= --stat --verbose --skid
			--aggregate --aggregate= --type= --event= --debuginfo-path=
			--debug-dir= --vmlinux= --source-dir= --skid= --sort= --window= --merge --diff
			--help --version" -- "$cur"))
		return ;;
	esac
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o nospace -F _dtresolve dtresolve

# perf script ... --dlarg <TAB>: the plugin's arguments
_dtprof_perf_dlarg()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$prev" = --dlarg ]; then
		COMPREPLY=($(compgen -W "report annotate annotate= stat sharing
			advise advise= code= html= format=tsv format=json filter=
			output= source-dir= skid=auto skid=on
			skid=off sort=samples sort=period sort=weight threads=1 threads=2
			vmlinux= window= help" -- "$cur"))
		return 0
	fi
	return 1
}

# Hook perf's completion when this file is sourced (bash-completion loads
# it lazily for dtresolve only; source it from ~/.bashrc for perf too).
_dtprof_perf()
{
	_dtprof_perf_dlarg && return
	if declare -F _perf >/dev/null; then
		_perf "$@"
	else
		COMPREPLY=($(compgen -f -- "${COMP_WORDS[COMP_CWORD]}"))
	fi
}
complete -o default -F _dtprof_perf perf
