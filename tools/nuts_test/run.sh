#!/bin/sh
# Builds and runs the standalone NUTS checks (not part of the package build).
cd "$(dirname "$0")/../.." || exit 1
gcc -std=c11 -Wall -Wextra -pedantic -O2 -D_GNU_SOURCE -Isrc -o /tmp/nuts_test \
  tools/nuts_test/nuts_test.c src/nuts/*.c src/math/core/tm_rng.c -lm || exit 1
/tmp/nuts_test "$@"
