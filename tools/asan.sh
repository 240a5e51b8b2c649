#!/usr/bin/env bash
# The whole test suite on a build of the package under AddressSanitizer and
# UndefinedBehaviorSanitizer (LeakSanitizer too), as the second pass of CI.
#   tools/asan.sh [PACKAGE]      PACKAGE: a source tarball or folder (default: this checkout)
#   ASAN_TEST_FILTER=sample tools/asan.sh   only the test files matching a pattern
# R itself is not instrumented, so the sanitizer runtimes are preloaded into
# it; leaks of R's own allocations (it frees little at exit) are suppressed
# by tools/lsan.supp, by the library that made them, never tapestry's.  Any
# sanitizer report ends R at once (halt_on_error), which counts as a failure.
# Ends with the line "N passed, N failed" and exits non-zero on a failure.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pkg=${1:-$here}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib"

cc=$(R CMD config CC | awk '{print $1}')
asan=$($cc -print-file-name=libasan.so)
ubsan=$($cc -print-file-name=libubsan.so)
if [ ! -e "$asan" ] || [ ! -e "$ubsan" ]; then
  echo "the sanitizer runtimes of $cc were not found (libasan.so, libubsan.so)"
  echo "0 passed, 1 failed"; exit 1
fi

# Instrumented build: the package's own flags plus the sanitizers, -O1 to
# keep stacks readable and the run fast enough (tests/testthat/test-cli.R
# builds the driver's SIMD kernels at -O1 too under this pass, for the same
# bits).
cat > "$work/Makevars" <<EOF
CFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS = -fsanitize=address,undefined
EOF
echo "== sanitizer build of $(basename "$pkg")"
if ! R_MAKEVARS_USER="$work/Makevars" R CMD INSTALL --no-test-load --library="$work/lib" "$pkg" > "$work/install.log" 2>&1; then
  cat "$work/install.log"; echo "0 passed, 1 failed"; exit 1
fi

src_tests="$here/tests/testthat"
cat > "$work/run.R" <<EOF
.libPaths(c("$work/lib", .libPaths()))
library(testthat)
library(tapestry)
options(testthat.progress.max_fails = 100000)
filter <- Sys.getenv("ASAN_TEST_FILTER")   # a regular expression of test files, for a quick run
res <- as.data.frame(test_dir("$src_tests", package = "tapestry", load_package = "installed",
                              filter = if (nzchar(filter)) filter else NULL,
                              reporter = ProgressReporter\$new(show_praise = FALSE),
                              stop_on_failure = FALSE))
failed <- sum(res\$failed) + sum(res\$error)
passed <- sum(res\$nb) - sum(res\$failed)
cat(sprintf("\nsanitizer pass: %d passed, %d failed\n", passed, failed))
quit(status = if (failed > 0) 1 else 0)
EOF

echo "== tests under ASan + UBSan"
# detect_stack_use_after_return=0: R checks its C stack against limits that
# ASan's fake stacks would confuse; abort_on_error: a report ends the run.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=0:allocator_may_return_null=1:malloc_context_size=6:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$here/tools/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export NOT_CRAN=true TAPESTRY_SANITIZER=1
LD_PRELOAD="$asan $ubsan" R --vanilla --no-echo -f "$work/run.R" > "$work/test.log" 2>&1
status=$?
cat "$work/test.log"
line=$(grep -E '^sanitizer pass: [0-9]+ passed, [0-9]+ failed' "$work/test.log" | tail -n 1)
if [ -n "$line" ]; then
  passed=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
  failed=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed.*/\1/')
else
  passed=0; failed=0
fi
# A sanitizer report (or any crash) ends R before or after the summary.
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer' "$work/test.log"; then
  echo "a sanitizer reported a problem (see above)"
  [ "$failed" -eq 0 ] && failed=1
fi
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  echo "R ended with status $status"
  failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
