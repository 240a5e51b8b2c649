#!/bin/sh
# Builds the libFuzzer target past the parser (fuzz_eval.c: data bound to
# real programs, log density, gradient and generated quantities evaluated)
# with ASan, UBSan and LeakSanitizer, and runs it.
#   tools/fuzz/run-eval.sh [RUNS] [more libFuzzer options...]
# RUNS defaults to 1000000 (-1: until stopped).  FUZZ_MODELS (colon-separated
# folders of NAME.stan + NAME.data.json) defaults to the shared models, the
# bundled examples and the brms fixtures.  FUZZ_WORK (default
# /tmp/tapestry_fuzz_eval) holds the binary, the corpus and any crashing
# inputs (artifacts/).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-1000000}
[ $# -gt 0 ] && shift
work=${FUZZ_WORK:-/tmp/tapestry_fuzz_eval}
mkdir -p "$work/corpus" "$work/artifacts"
export FUZZ_MODELS="${FUZZ_MODELS:-$root/../shared/models:$root/inst/extdata:$root/tests/testthat/fixtures/brms}"

srcs=$(ls "$root"/src/ad/*.c "$root"/src/math/*.c $(ls "$root"/src/math/*/*.c 2>/dev/null) "$root"/src/par/*.c "$root"/src/prof/*.c "$root"/src/front/*.c "$root"/src/data/*.c "$root"/src/tree/*.c "$root"/src/plan/*.c | tr '\n' ' ')
# shellcheck disable=SC2086
clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I"$root/src" "$here/fuzz_eval.c" $srcs -o "$work/fuzz_eval" -lm -pthread

# one seed per program (its own data, parameters near 0)
FUZZ_WRITE_SEEDS="$work/corpus" "$work/fuzz_eval" -runs=0 >/dev/null 2>&1 || true

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
exec "$work/fuzz_eval" -runs="$runs" -timeout=20 -max_len=65536 -rss_limit_mb=3072 \
  -dict="$here/json.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$@" "$work/corpus"
