#!/usr/bin/env bash
# Every relative link in the repository's Markdown resolves in a clone.
#
#   scripts/doclinks.sh [SOURCE_DIR]      (ctest `doclinks`)
#
# For each *.md file a clone has (git ls-files: tracked, or new and not
# ignored; without git, every file outside build*/ and .git/), each link
# [text](target), ![alt](target) and reference definition "[id]: target"
# outside code fences and inline code is checked:
#   - a URL (scheme:...) is left alone;
#   - an absolute path, or a relative one that leaves the repository (such
#     as ../shared/FORMATS.md from the top), is an error: a clone has
#     neither;
#   - a relative path must name a tracked file or a directory holding one
#     (a file only on this machine does not count);
#   - a #fragment, on its own or after a .md target, must be a heading of
#     that file (GitHub's slugs: lower case, ASCII punctuation and other
#     bytes dropped except '-' and '_', spaces to '-', "-1", "-2" for
#     repeats) or an explicit id="..." / name="..." anchor.
# And a file name ending in .md mentioned anywhere in the text (a dead
# "see FORMATS.md" is no better than a dead link) must be the name of some
# Markdown file of the repository.
# Prints one line per broken link, FILE:LINE: target: why, and exits 1 if
# there is any.
set -euo pipefail

root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$root"

if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # what a clone will have once this work tree is committed: tracked and
  # new files, not ignored ones (build outputs)
  tracked=$(git ls-files --cached --others --exclude-standard)
else
  tracked=$(find . -path ./.git -prune -o -path './build*' -prune -o -type f -print | sed 's|^\./||')
fi
declare -A have=()
while IFS= read -r f; do
  [ -n "$f" ] || continue
  have["$f"]=1
  d=$(dirname "$f")
  while [ "$d" != "." ] && [ -z "${have["$d/"]:-}" ]; do
    have["$d/"]=1
    d=$(dirname "$d")
  done
done <<<"$tracked"

# Links of one Markdown file: "LINE<TAB>TARGET" per link.
links() {
  awk '
    /^[ \t]*(```|~~~)/ { fence = !fence; next }
    fence { next }
    {
      line = $0
      gsub(/`[^`]*`/, "", line)               # inline code
      if (match(line, /^[ \t]*\[[^]]+\]:[ \t]*[^ \t]+/)) {   # [id]: target
        t = substr(line, RSTART, RLENGTH)
        sub(/^[ \t]*\[[^]]+\]:[ \t]*/, "", t)
        sub(/^</, "", t); sub(/>$/, "", t)
        print NR "\t" t
        next
      }
      while (match(line, /\]\([^)]*\)/)) {     # [text](target "title")
        t = substr(line, RSTART + 2, RLENGTH - 3)
        line = substr(line, RSTART + RLENGTH)
        sub(/^[ \t]+/, "", t)
        sub(/[ \t]+"[^"]*"$/, "", t)
        sub(/^</, "", t); sub(/>$/, "", t)
        if (t != "") print NR "\t" t
      }
    }' "$1"
}

# The anchors of one Markdown file, one per line.
anchors() {
  awk '
    /^[ \t]*(```|~~~)/ { fence = !fence; next }
    fence { next }
    /^#+[ \t]/ && match($0, /^#+/) && RLENGTH <= 6 {
      h = $0
      sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#+[ \t]*$/, "", h)
      h = tolower(h)
      s = ""
      for (i = 1; i <= length(h); i++) {
        c = substr(h, i, 1)
        if (c ~ /[a-z0-9_-]/) s = s c
        else if (c == " ") s = s "-"
      }
      if (s in seen) { n = seen[s]++; print s "-" n } else { seen[s] = 1; print s }
    }
    {
      line = $0
      while (match(line, /(id|name)="[^"]+"/)) {
        a = substr(line, RSTART, RLENGTH)
        line = substr(line, RSTART + RLENGTH)
        sub(/^(id|name)="/, "", a); sub(/"$/, "", a)
        print a
      }
    }' "$1"
}

# Normalise a repository-relative path: resolve "." and "..". Prints
# nothing when the path leaves the repository.
normalise() {
  local IFS=/ part out=()
  for part in $1; do
    case "$part" in
      ''|.) ;;
      ..) [ ${#out[@]} -gt 0 ] || return 0; unset 'out[${#out[@]}-1]' ;;
      *) out+=("$part") ;;
    esac
  done
  local joined="${out[*]}"
  printf '%s\n' "${joined:-.}"
}

bad=0
fail() { echo "$1: $2: $3"; bad=1; }

declare -A mdname=()
while IFS= read -r f; do
  case "$f" in *.md) mdname["$(basename "$f")"]=1 ;; esac
done <<<"$tracked"

while IFS= read -r md; do
  [ -n "$md" ] || continue
  case "$md" in *.md) ;; *) continue ;; esac
  [ -f "$md" ] || continue
  dir=$(dirname "$md")
  while IFS=$'\t' read -r line target; do
    [ -n "$target" ] || continue
    case "$target" in
      [a-zA-Z]*:*) scheme=${target%%:*}
        if [[ "$scheme" =~ ^[a-zA-Z][a-zA-Z0-9+.-]*$ ]]; then continue; fi ;;
    esac
    path=${target%%#*}
    frag=""
    [ "$path" = "$target" ] || frag=${target#*#}
    path=${path%%\?*}
    if [ -z "$path" ]; then
      file=$md
    else
      case "$path" in
        /*) fail "$md:$line" "$target" "an absolute path (a clone does not have it)"; continue ;;
      esac
      file=$(normalise "$dir/$path")
      if [ -z "$file" ]; then
        fail "$md:$line" "$target" "leaves the repository"
        continue
      fi
      if [ -z "${have["$file"]:-}" ] && [ -z "${have["$file/"]:-}" ] && [ "$file" != "." ]; then
        fail "$md:$line" "$target" "no such file in the repository ($file)"
        continue
      fi
    fi
    if [ -n "$frag" ]; then
      case "$file" in
        *.md)
          if ! anchors "$file" | grep -qxF -- "$frag"; then
            fail "$md:$line" "$target" "no heading or anchor '#$frag' in $file"
          fi ;;
      esac
    fi
  done < <(links "$md")
  while IFS=: read -r line name; do
    [ -n "${mdname["$(basename "$name")"]:-}" ] ||
      fail "$md:$line" "$name" "mentions a Markdown file that the repository does not have"
  done < <(grep -noE '[A-Za-z0-9_./-]*[A-Za-z0-9_-][.]md\b' "$md" || true)
done <<<"$tracked"

if [ "$bad" -ne 0 ]; then
  echo "doclinks: broken links (above)" >&2
  exit 1
fi
echo "doclinks: every relative link in the Markdown files resolves"
