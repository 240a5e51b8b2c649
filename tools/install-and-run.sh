#!/usr/bin/env bash
# Installs tapestry with its dependencies and runs its main job on the
# bundled examples: the log density and gradient of a normal model at Stan's
# reference points, then the eight schools model sampled with 4 chains and
# its posterior compared with Stan's.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/tools/deps.sh"
R CMD INSTALL "$here"
Rscript "$here/inst/examples/conjugate_normal.R"
Rscript "$here/inst/examples/eight_schools.R"
