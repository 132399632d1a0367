#!/bin/bash
# format.sh: the C lines changed since the commit named in
# .clang-format-base are formatted as .clang-format says (git clang-format
# --diff).  The older code keeps its hand-made layout, which clang-format
# 14 cannot reproduce (.clang-format says which habits).  Skipped outside a
# git checkout (a dist tarball), where that commit is missing (a shallow
# clone), or without clang-format; FORMAT_BASE overrides the commit.
set -u
. "$top_srcdir/test/lib/tap_lib.sh"
cd "$top_srcdir" || exit 1

command -v git-clang-format >/dev/null 2>&1 ||
    skip_all "no git-clang-format (Debian package clang-format)"
git rev-parse --git-dir >/dev/null 2>&1 || skip_all "not a git checkout"
base=${FORMAT_BASE:-$(sed -n '/^[0-9a-f]\{40\}$/p' .clang-format-base 2>/dev/null)}
[ -n "$base" ] || { notok ".clang-format-base names a commit"; done_testing; }
git cat-file -e "$base^{commit}" 2>/dev/null ||
    skip_all "commit $base of .clang-format-base is not in this clone"

out=$(git clang-format --diff --extensions c,h "$base" -- . 2>&1)
rc=$?
case $out in
"no modified files to format"* | "clang-format did not modify any files"*)
	ok "C lines changed since ${base:0:12} are formatted" ;;
*)
	if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
		ok "C lines changed since ${base:0:12} are formatted"
	else
		notok "C lines changed since ${base:0:12} are formatted" \
		    "$(printf '%s\nfix: git clang-format %s\n' "$out" "$base")"
	fi ;;
esac
done_testing
