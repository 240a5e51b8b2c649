#!/bin/sh
# Thread sanitizer stress run (issue 5): builds tapestry with
# -fsanitize=thread into /tmp/lib_tsan and runs tools/tsan-stress.R under R
# with libtsan preloaded (R itself is not instrumented; tapestry's C code
# is, which is where the threads are).  Run from the repository root:
#   sh tools/tsan.sh [repetitions]
# Any data race makes ThreadSanitizer print "WARNING: ThreadSanitizer" and
# the script exit with status 66.  setarch -R turns address randomisation
# off, which this libtsan needs on recent kernels.
set -e
reps=${1:-20}
work=$(mktemp -d)
rsync -a --exclude .git --exclude '*.o' --exclude '*.so' ./ "$work/"
cat > "$work/Makevars.tsan" <<'MK'
CFLAGS = -g -O1 -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS = -fsanitize=thread
MK
mkdir -p /tmp/lib_tsan
(cd "$work" && ./cleanup && ./configure >/dev/null &&
  R_MAKEVARS_USER="$work/Makevars.tsan" R CMD INSTALL --no-test-load --library=/tmp/lib_tsan . >"$work/install.log" 2>&1) ||
  { tail -30 "$work/install.log"; exit 1; }
R_HOME=$(R RHOME)
export R_HOME
TSAN_OPTIONS="halt_on_error=0 exitcode=66 report_signal_unsafe=0" \
  LD_PRELOAD=$(gcc -print-file-name=libtsan.so) \
  setarch "$(uname -m)" -R "$R_HOME/bin/exec/R" --no-echo --no-restore \
  -f tools/tsan-stress.R --args /tmp/lib_tsan "$reps"
