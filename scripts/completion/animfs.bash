# bash completion for animfs: commands, each command's options, format, layout and mod
# folder layout names, and paths. Everything is asked of animfs itself (help --commands,
# help CMD, formats), so a new command, option or codec needs no edit here.
# Installed as share/bash-completion/completions/animfs.

_animfs_formats() {
	"$1" formats 2>/dev/null | awk 'NR == 1 { next } NF == 0 { exit } { print $1 }'
}

_animfs_layouts() {
	"$1" help convert 2>/dev/null | awk 'f { print $1 } /the layouts:/ { f = 1 }'
}

_animfs_overlay_layouts() {
	"$1" help mount 2>/dev/null | sed -n 's/^ *--overlay-layout \([^ :]*\): .*/\1/p'
}

# The options a command's help lists (--NAME, --NAME= for those that take =N, -X).
_animfs_options() {
	"$1" help "$2" 2>/dev/null | grep -oE -- '(^|[ [,])--?[a-zA-Z][a-zA-Z-]*=?' | tr -d ' [,' | sort -u
}

_animfs() {
	local animfs=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev= cmd=${COMP_WORDS[1]}
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	if [ "$COMP_CWORD" -le 1 ]; then
		COMPREPLY=($(compgen -W "$("$animfs" help --commands 2>/dev/null) --help --version" -- "$cur"))
		return 0
	fi
	case $prev in
	--format)
		COMPREPLY=($(compgen -W "$(_animfs_formats "$animfs")" -- "$cur"))
		return 0 ;;
	--to)
		COMPREPLY=($(compgen -W "$(_animfs_layouts "$animfs")" -- "$cur"))
		return 0 ;;
	--overlay-layout)
		COMPREPLY=($(compgen -W "$(_animfs_overlay_layouts "$animfs")" -- "$cur"))
		return 0 ;;
	--object | --anim | --style | --cache-mb | --spill-mb | --unsaved-mb | --scratch-mb | --split-over | --listen)
		return 0 ;; # a name or a number: nothing to offer
	esac
	case $cmd in
	help)
		[ "$COMP_CWORD" -eq 2 ] &&
			COMPREPLY=($(compgen -W "$("$animfs" help --commands 2>/dev/null) --commands" -- "$cur"))
		return 0 ;;
	schema)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "$(_animfs_formats "$animfs") --all" -- "$cur"))
			return 0
		fi ;;
	overlay)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "status diff ship" -- "$cur"))
			return 0
		fi ;;
	formats | version)
		return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_animfs_options "$animfs" "$cmd") --help" -- "$cur"))
		[[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null
		return 0
	fi
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$cur"))
	return 0
}
complete -F _animfs animfs
