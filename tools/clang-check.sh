#!/usr/bin/env bash
# The sources as macOS's compiler sees them: every C file compiled with
# clang -std=c11 -Wall -Wextra -pedantic -Werror, twice:
#  1. for this machine (x86_64, as Intel Macs), with the flags configure
#     gives this build (MPI, SUNDIALS and GSL when they are here), -O2;
#  2. for aarch64 (Apple silicon's architecture), against Debian's arm64
#     C library headers (libc6-dev-arm64-cross), syntax and semantics only
#     (-fsyntax-only): what no x86 machine would show, such as x86-only
#     intrinsics outside their guards.
# Apple's own clang and SDK are not here: Debian's clang stands in
# (Apple's clang warns as upstream clang does for these flags), so what
# macOS's headers alone would say is not checked.  tools/test.sh runs it;
# tools/deps.sh installs clang and libc6-dev-arm64-cross.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
command -v clang >/dev/null 2>&1 || { echo "clang-check: no clang (apt-get install clang)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rinc=$(Rscript -e 'cat(R.home("include"))')

mkdir -p "$work/pkg"
cp -r "$here/src" "$here/configure" "$work/pkg"/
rm -f "$work/pkg/src"/*.o "$work/pkg/src"/*/*.o "$work/pkg/src"/*.so "$work/pkg/src/Makevars"
(cd "$work/pkg" && TAPESTRY_CC=clang R_HOME=$(R RHOME) sh ./configure) | sed 's/^/  /'
cat > "$work/print.mk" <<'EOF'
print:
	@echo "OBJECTS=$(OBJECTS)"
	@echo "PKG_CPPFLAGS=$(PKG_CPPFLAGS)"
	@echo "PKG_CFLAGS=$(PKG_CFLAGS)"
EOF
vars=$(make -s -C "$work/pkg/src" -f Makevars -f "$work/print.mk" print)
get() { echo "$vars" | sed -n "s/^$1=//p"; }
objects=$(get OBJECTS); cppflags=$(get PKG_CPPFLAGS); cflags=$(get PKG_CFLAGS)
strict="-std=c11 -Wall -Wextra -pedantic -Werror"
cd "$work/pkg/src"
srcs=$(for o in $objects; do echo "${o%.o}.c"; done)

# one compiler run per file, two at a time; a file's diagnostics go to its log
run() {
  local tag=$1; shift
  printf '%s\n' $srcs | xargs -P 2 -I{} sh -c \
    'log="$0/$(echo {} | tr / _).log"; '"$*"' -c {} -o /dev/null > "$log" 2>&1 || echo {} >> "$0/failed"' "$work/$tag"
}
mkdir -p "$work/native" "$work/arm64"
run native clang $strict -O2 -fPIC -pthread -I"$rinc" -DNDEBUG $cppflags $cflags
n_fail=0
if [ -f "$work/native/failed" ]; then
  for f in $(cat "$work/native/failed"); do cat "$work/native/$(echo "$f" | tr / _).log"; done
  n_fail=$(wc -l < "$work/native/failed")
fi
echo "clang-check: $(echo $srcs | wc -w) files for $(clang -dumpmachine) with $strict -O2 $cppflags: $n_fail failed"

a_fail=0
if [ -d /usr/aarch64-linux-gnu/include ]; then
  # the package's own flags, without the optional libraries' (no arm64 builds of them here)
  run arm64 clang --target=aarch64-linux-gnu --sysroot=/usr/aarch64-linux-gnu \
    -isystem /usr/aarch64-linux-gnu/include $strict -fsyntax-only -fPIC -pthread -I"$rinc" -DNDEBUG -I.
  if [ -f "$work/arm64/failed" ]; then
    for f in $(cat "$work/arm64/failed"); do cat "$work/arm64/$(echo "$f" | tr / _).log"; done
    a_fail=$(wc -l < "$work/arm64/failed")
  fi
  echo "clang-check: the same files for aarch64 (-fsyntax-only): $a_fail failed"
else
  echo "clang-check: no arm64 C library headers (libc6-dev-arm64-cross): the aarch64 pass was not run"
  a_fail=1
fi
[ "$n_fail" -eq 0 ] && [ "$a_fail" -eq 0 ] || exit 1
echo "clang-check: OK"
