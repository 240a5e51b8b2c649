#!/usr/bin/env bash
# Installs tapestry with its dependencies and runs its main job on the
# bundled example: the log density and gradient of a normal model.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/tools/deps.sh"
R CMD INSTALL "$here"
Rscript "$here/inst/examples/conjugate_normal.R"
