#!/usr/bin/env bash
# Writes tools/stan221/signatures.tsv.gz: Stan 2.21's library signatures, read
# from stanc2's own table (StanHeaders 2.21, which r-cran-rstan brings).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(Rscript -e 'cat(system.file("include", "src", package = "StanHeaders"))')
[ -f "$src/stan/lang/function_signatures.h" ] || { echo "StanHeaders 2.21 with stanc2's sources is needed"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/inc/stan/lang/ast/sigs"
sed 's/^ *private:/ public:/' "$src/stan/lang/ast/sigs/function_signatures.hpp" \
  > "$tmp/inc/stan/lang/ast/sigs/function_signatures.hpp"
g++ -std=c++14 -O0 -I"$tmp/inc" -I"$src" "$here/dump_signatures.cpp" -o "$tmp/dump"
"$tmp/dump" | LC_ALL=C sort | gzip -9 -n > "$here/signatures.tsv.gz"
zcat "$here/signatures.tsv.gz" | wc -l
