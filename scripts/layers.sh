#!/usr/bin/env bash
# Checks the layering of the source tree against the layers CMakeLists.txt
# declares (its `pipeopt_layer(NAME DEPS a b ... [LINK ...] [SOURCES ...])`
# lines; cmake/Layers.cmake):
#   (a) the declared graph is a DAG over declared layers (tsort);
#   (b) every #include of every source and header (.c .h .cu .cuh) in a
#       layer's folder names a folder that layer may see: itself and its
#       DEPS, transitively. "../" paths are resolved first, so
#       #include "../sched/x.h" counts as sched. The consumers cli/, bench/
#       and tests/ may see every layer (and their own folder), but not each
#       other. A folder that is not a layer but is named in a
#       pipeopt_view(TARGET ...) line (ops/: the CUDA plugin's shared
#       kernels) is a header folder that the layers on the same line may
#       include.
#   (c) prints the folder graph the includes draw, the layer order and a
#       one-line verdict.
# One line per violation on stderr ("file:line: ..."); exit status 1 if any.
#
# Usage: scripts/layers.sh [SOURCE_ROOT]   (default: this checkout)
set -euo pipefail
root=${1:-"$(dirname "$0")/.."}
root=$(cd "$root" && pwd)
cd "$root"
[[ -f CMakeLists.txt ]] || { echo "layers: no CMakeLists.txt in '$root'" >&2; exit 2; }

consumers=(cli bench tests)

# Each call of FN( ... ) in CMakeLists.txt as one line "ARG ARG ...",
# comments dropped and multi-line calls joined.
calls() {
	awk -v fn="$1" '
		{ sub(/#.*/, "") }
		!open && match($0, "(^|[^A-Za-z0-9_])" fn "\\(") {
			open = 1; text = substr($0, RSTART + RLENGTH); $0 = ""
		}
		open {
			text = text " " $0
			if (index(text, ")")) {
				print substr(text, 1, index(text, ")") - 1)
				open = 0; text = ""
			}
		}' CMakeLists.txt
}

declare -A deps=() is_layer=() sees=() header_users=()
layers=()
while read -r name rest; do
	[[ -n $name ]] || continue
	layers+=("$name")
	is_layer[$name]=1
	d="" in_deps=0
	for w in $rest; do
		case $w in
		DEPS) in_deps=1 ;;
		LINK | SOURCES) in_deps=0 ;;
		*) ((in_deps)) && d+=" $w" ;;
		esac
	done
	deps[$name]=${d# }
done < <(calls pipeopt_layer)
((${#layers[@]})) || { echo "layers: CMakeLists.txt declares no pipeopt_layer" >&2; exit 2; }

# Header folders: named in a pipeopt_view line, not layers, present here.
while read -r _target folders; do
	for f in $folders; do
		[[ -z ${is_layer[$f]:-} && -d $f ]] || continue
		for u in $folders; do
			[[ -n ${is_layer[$u]:-} ]] && header_users[$f]+=" $u"
		done
	done
done < <(calls pipeopt_view)

errors=0
err() { echo "$*" >&2; errors=$((errors + 1)); }

# (a) the declared graph: known names, no cycle
pairs=""
for l in "${layers[@]}"; do
	pairs+="$l $l"$'\n'
	for d in ${deps[$l]}; do
		[[ -n ${is_layer[$d]:-} ]] || err "CMakeLists.txt: layer '$l' uses '$d', which is not a declared layer"
		pairs+="$d $l"$'\n'
	done
done
loop=$(mktemp)
if ! order=$(printf '%s' "$pairs" | tsort 2>"$loop"); then
	err "CMakeLists.txt: the declared layers have a cycle: $(grep -v 'input contains a loop' "$loop" | sed 's/^tsort: //' | paste -sd' ')"
	order=""
fi
rm -f "$loop"

# What each layer may see: itself and its DEPS, transitively.
closure() {
	local todo=("$1") seen=" " l
	while ((${#todo[@]})); do
		l=${todo[0]}
		todo=("${todo[@]:1}")
		[[ $seen == *" $l "* ]] && continue
		seen+="$l "
		for d in ${deps[$l]:-}; do todo+=("$d"); done
	done
	echo "$seen"
}
for l in "${layers[@]}"; do sees[$l]=$(closure "$l"); done
all_layers=" ${layers[*]} "
for c in "${consumers[@]}"; do sees[$c]="$all_layers$c "; done
for h in "${!header_users[@]}"; do sees[$h]=" $h "; done

# The top-level folder an include names, in $t: "" when it is outside the
# tree's folders (a system or library header), "(outside the tree)" when a
# "../" climbs out. $1: the including file, $2: the include, $3: 1 if quoted.
target_folder() {
	local file=$1 inc=$2 first=${2%%/*} p
	t=""
	if [[ $inc != *..* && $inc != ./* && $inc != */./* ]]; then
		if [[ $inc == */* && -n ${sees[$first]:-} ]]; then
			t=$first
		elif (($3)) && [[ $inc != */* ]]; then
			t=${file%%/*}   # "x.h": the file's own folder
		fi
		return 0
	fi
	p=$(realpath -m --relative-to=. "$(dirname "$file")/$inc")
	case $p in
	../* | ..) t="(outside the tree)" ;;
	*/*) first=${p%%/*}; [[ -n ${sees[$first]:-} ]] && t=$first ;;
	esac
	return 0
}

# (b) every include of every folder we know
declare -A arrows=()
folders=("${layers[@]}" "${!header_users[@]}" "${consumers[@]}")
for f in "${folders[@]}"; do
	[[ -d $f ]] || continue
	while IFS= read -r hit; do
		file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; text=${rest#*:}
		[[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\"<])([^\">]*) ]] || continue
		inc=${BASH_REMATCH[2]}
		quoted=0; [[ ${BASH_REMATCH[1]} == '"' ]] && quoted=1
		target_folder "$file" "$inc" "$quoted"
		[[ -n $t ]] || continue
		[[ $t != "$f" ]] && arrows[$f]+=" $t"
		if [[ $t == "(outside the tree)" ]]; then
			err "$file:$line: '$f' includes '$inc', which is outside the source tree"
		elif [[ ${sees[$f]} != *" $t "* && ! ( -n ${header_users[$t]:-} && " ${header_users[$t]} " == *" $f "* ) ]]; then
			what="layer $f"; [[ -n ${is_layer[$f]:-} ]] || what="$f (a consumer)"
			err "$file:$line: '$f' includes '$inc', which $what may not use (it sees:${sees[$f]% })"
		fi
	done < <(find "$f" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print0 |
		 sort -z | xargs -0 -r grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' || true)
done

# (c) the graph as the includes draw it, the order, the verdict
echo "folder graph (from the includes):"
for f in "${folders[@]}"; do
	[[ -d $f ]] || continue
	uses=$(tr ' ' '\n' <<<"${arrows[$f]:-}" | sed '/^$/d' | sort -u | paste -sd' ')
	kind=""
	[[ -n ${header_users[$f]:-} ]] && kind=" (headers for:${header_users[$f]})"
	printf '  %-10s -> %s%s\n' "$f" "${uses:-(nothing)}" "$kind"
done
echo "layer order (bottom up): $(echo $order)"
if ((errors)); then
	echo "layers: $errors violation(s) of the declared layers" >&2
	exit 1
fi
echo "layers: ok: ${#layers[@]} layers form a DAG and every include goes down"
