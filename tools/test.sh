#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds the source package,
# runs R CMD check --as-cran on it (tests included; CRAN's remote checks
# off), cross-builds the Windows DLL (tools/cross-windows.sh) and compiles
# every C file with clang for x86_64 and aarch64 (tools/clang-check.sh),
# runs the tests a second time on a build under AddressSanitizer and
# UndefinedBehaviorSanitizer (tools/asan.sh), and ends with the line
# "N passed, N failed" from testthat's counts (each of the two portability
# builds counts as one test).  Exits non-zero when the check reports an
# error, a warning or a note, or when any test or build fails.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/tools/deps.sh" || { echo "dependency installation failed"; echo "0 passed, 1 failed"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# NOT_CRAN: run the snapshot tests of messages too (testthat skips them on CRAN)
# _R_CHECK_CRAN_INCOMING_REMOTE_: --as-cran without its look at CRAN's servers
# (no network here); what remains of the incoming check is local
# _R_SHLIB_STRIP_: R CMD INSTALL strips the shared object (R's own switch, as
# --strip): of its 3.5 MB, 2.6 MB are gcc's -g debug information, which pushed
# the installed size over check's 5 MB note.  Only the debug information
# (--strip-debug): check's look at the compiled code reads the symbol table.
export _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_SYSTEM_CLOCK_=FALSE NOT_CRAN=true \
  _R_CHECK_CRAN_INCOMING_REMOTE_=false \
  _R_SHLIB_STRIP_=true R_STRIP_SHARED_LIB="strip --strip-debug"
echo "== R CMD build"
if ! R CMD build "$here" > build.log 2>&1; then
  cat build.log; echo "0 passed, 1 failed"; exit 1
fi
tarball=$(ls tapestry_*.tar.gz)
echo "== R CMD check --as-cran --no-manual $tarball"
R CMD check --as-cran --no-manual "$tarball" > check.log 2>&1
check_status=$?
cat check.log
out=tapestry.Rcheck/tests/testthat.Rout
[ -f "$out" ] || out=tapestry.Rcheck/tests/testthat.Rout.fail
if [ -f "$out" ]; then
  echo "== test output (tail)"
  tail -n 60 "$out"
fi
summary=$(grep -E '\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$out" 2>/dev/null | tail -n 1)
failed=$(echo "$summary" | sed -E 's/.*FAIL ([0-9]+).*/\1/')
passed=$(echo "$summary" | sed -E 's/.*PASS ([0-9]+).*/\1/')
[ -n "$summary" ] || { passed=0; failed=1; }
status=0
if [ "$check_status" -ne 0 ] || grep -qE '^Status: .*(ERROR|WARNING|NOTE)' check.log; then
  echo "R CMD check is not clean (see above)"
  status=1
  [ "$failed" -eq 0 ] && failed=1
fi
# The portability builds (no Windows or Mac here): mingw-w64's DLL and clang.
for tool in cross-windows clang-check; do
  echo "== tools/$tool.sh"
  if bash "$here/tools/$tool.sh" > "$tool.log" 2>&1; then
    tail -n 6 "$tool.log"
    passed=$((passed + 1))
  else
    cat "$tool.log"
    echo "tools/$tool.sh failed"
    failed=$((failed + 1))
    status=1
  fi
done
# Second pass: the whole suite again on a build under AddressSanitizer and
# UndefinedBehaviorSanitizer (tools/asan.sh); its counts join the first's.
echo "== sanitizer pass (tools/asan.sh)"
bash "$here/tools/asan.sh" "$work/$tarball" > asan.log 2>&1
asan_status=$?
tail -n 40 asan.log
# a failure's own lines, which the tail can miss: testthat's list of failed
# tests, and any sanitizer report with its stack
if [ "$asan_status" -ne 0 ]; then
  echo "== sanitizer pass: the failures"
  sed -n '/══ Failed/,/══ DONE/p' asan.log | head -n 300
  grep -n -B 5 -A 40 -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' asan.log | head -n 200
fi
asan_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' asan.log | tail -n 1)
asan_passed=$(echo "$asan_line" | sed -E 's/^([0-9]+) passed.*/\1/')
asan_failed=$(echo "$asan_line" | sed -E 's/.*passed, ([0-9]+) failed/\1/')
[ -n "$asan_line" ] || { asan_passed=0; asan_failed=1; }
[ "$asan_status" -ne 0 ] && [ "$asan_failed" -eq 0 ] && asan_failed=1
passed=$((passed + asan_passed))
failed=$((failed + asan_failed))
[ "$failed" -ne 0 ] && status=1
echo "$passed passed, $failed failed"
exit $status
