#!/bin/sh
# Builds the libFuzzer target of the Stan parser with ASan, UBSan and
# LeakSanitizer and runs it.
#   tools/fuzz/run.sh [RUNS] [more libFuzzer options...]
# RUNS defaults to 1000000 (-1: until stopped).  WITH_CHECK=1 also links and
# runs the checker.  FUZZ_WORK (default /tmp/tapestry_fuzz) holds the binary,
# the growing corpus and any crashing inputs (artifacts/).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-1000000}
[ $# -gt 0 ] && shift
work=${FUZZ_WORK:-/tmp/tapestry_fuzz}
mkdir -p "$work/corpus" "$work/artifacts"
cp "$root"/inst/extdata/*.stan "$here"/seeds/*.stan "$work/corpus/"

srcs="$root/src/front/lx_lex.c $root/src/front/lp_parse.c $root/src/front/lp_decl.c \
$root/src/front/lp_stmt.c $root/src/front/lp_expr.c $root/src/front/ln_ast.c $root/src/front/ln_diag.c $root/src/front/ln_include.c"
defs=""
if [ -n "${WITH_CHECK:-}" ]; then
  srcs="$srcs $(ls "$root"/src/front/lc_*.c "$root"/src/front/lt_*.c "$root"/src/ad/*.c "$root"/src/math/*.c $(ls "$root"/src/math/*/*.c 2>/dev/null) | tr '\n' ' ')"
  defs="-DWITH_CHECK"
fi
# shellcheck disable=SC2086
clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  $defs -I"$root/src" "$here/fuzz_parse.c" $srcs -o "$work/fuzz_parse" -lm -pthread

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
exec "$work/fuzz_parse" -runs="$runs" -timeout=10 -max_len=4096 -rss_limit_mb=2048 \
  -dict="$here/stan.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$@" "$work/corpus"
