#!/bin/sh
# Thread scaling of the C core through tapestry-cli, with no R: ns per
# gradient of each program at each thread count (the median of ROUNDS
# interleaved runs, each itself the median of 7 blocks), and the speed-up
# over one thread, as a Markdown table.  With -c, the throughput of chains
# instead: C chains at once, one thread each, gradients per second of all
# of them against one chain.
#
#   tools/cli/scaling.sh                       # the shared programs, 1 2 4 8 16 threads
#   tools/cli/scaling.sh -t "1 2" -r 5 logistic hier_poisson
#   tools/cli/scaling.sh -c -t "1 2 4 8 16"    # chains
#
# Options: -t "THREADS..." (default "1 2 4 8 16"), -r ROUNDS (default 3),
# -e EVALS timed evaluations per run (default 350), -c chains mode (-w/-s:
# warmup and sampling iterations of each chain, default 200/200).
# Environment: MODELS, the folder of NAME.stan + NAME.data.json (+
# NAME.reference.json, whose first point is used; default ../shared/models
# beside the repository, else inst/extdata); CLI, the driver (default
# tools/cli/tapestry-cli, built with make when missing); RAW=file keeps
# every run's figure (program threads round ns).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
threads="1 2 4 8 16"
rounds=3
evals=350
chains=0
warmup=200
samples=200
while getopts "t:r:e:cw:s:h" opt; do
  case $opt in
    t) threads=$OPTARG ;;
    r) rounds=$OPTARG ;;
    e) evals=$OPTARG ;;
    c) chains=1 ;;
    w) warmup=$OPTARG ;;
    s) samples=$OPTARG ;;
    *) sed -n '2,22p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
programs=${*:-"hier_poisson_reduce lbeta_map map_rect_hier hier_poisson logistic logistic_reduce gp_profile"}

if [ -z "${MODELS:-}" ]; then
  if [ -d "$root/../shared/models" ]; then MODELS="$root/../shared/models"; else MODELS="$root/inst/extdata"; fi
fi
cli=${CLI:-"$here/tapestry-cli"}
if [ ! -x "$cli" ]; then
  echo "building $cli" >&2
  make -C "$here" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
fi
cores=$(nproc 2>/dev/null || echo "?")
raw=${RAW:-$(mktemp)}
[ -n "${RAW:-}" ] || trap 'rm -f "$raw"' EXIT
: > "$raw"

for t in $threads; do
  if [ "$cores" != "?" ] && [ "$t" -gt "$cores" ]; then
    echo "note: $t threads on $cores cores: that column measures oversubscription" >&2
  fi
done

# one figure: ns per gradient (gradient mode) or gradients per second of
# all chains (chains mode)
measure() {
  p=$1; t=$2
  stan="$MODELS/$p.stan"; data="$MODELS/$p.data.json"; ref="$MODELS/$p.reference.json"
  set -- "$stan" "$data"
  [ -f "$ref" ] && set -- "$@" --upars "$ref"
  if [ "$chains" = 1 ]; then
    "$cli" "$stan" "$data" --sample --chains "$t" --parallel-chains "$t" --threads 1 \
      --warmup "$warmup" --samples "$samples" --seed 1 --refresh 0 --output "$tmpcsv" 2>/dev/null |
      awk '$1 == "wall_seconds" {w = $2} $1 == "gradients" {g = $2} END {if (w > 0) printf "%.0f\n", g / w}'
  else
    "$cli" "$@" --threads "$t" --evals "$evals" 2>/dev/null | awk '/^ns_per_gradient/ {print $2}'
  fi
}

tmpdir=$(mktemp -d)
tmpcsv="$tmpdir/out.csv"
for r in $(seq 1 "$rounds"); do
  for p in $programs; do
    if [ ! -f "$MODELS/$p.stan" ]; then echo "no $MODELS/$p.stan" >&2; continue; fi
    for t in $threads; do
      v=$(measure "$p" "$t" || true)
      [ -n "$v" ] || v=NA
      echo "$p $t $r $v" >> "$raw"
      printf '.' >&2
    done
  done
done
rm -rf "$tmpdir"
echo >&2

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
if [ "$chains" = 1 ]; then
  echo "Chains at once (one thread each), gradients per second of all chains, median of $rounds rounds; $cores cores${cpu:+, $cpu}"
else
  echo "ns per gradient, median of $rounds interleaved rounds (each the median of 7 blocks, $evals evaluations in all); $cores cores${cpu:+, $cpu}"
fi
echo
awk -v threads="$threads" -v programs="$programs" -v chains="$chains" '
function median(s,   a, n, i, j, x) {
  n = split(s, a, " ")
  for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
  if (n == 0) return ""
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(x) {
  if (x == "") return "NA"
  if (chains) return sprintf("%.0f", x)
  if (x >= 1e6) return sprintf("%.2fM", x / 1e6)
  if (x >= 1e4) return sprintf("%.0fk", x / 1e3)
  if (x >= 1e3) return sprintf("%.1fk", x / 1e3)
  return sprintf("%.0f", x)
}
$4 != "NA" { v[$1 " " $2] = v[$1 " " $2] " " $4 }
END {
  nt = split(threads, T, " "); np = split(programs, P, " ")
  head = "| program |"; rule = "|---|"
  for (i = 1; i <= nt; i++) { head = head " " T[i] (i == nt ? (chains ? " chains" : " threads") : "") " |"; rule = rule "---|" }
  print head " best speed-up |"; print rule "---|"
  for (k = 1; k <= np; k++) {
    p = P[k]; line = "| " p " |"; base = ""; best = 0; at = ""
    for (i = 1; i <= nt; i++) {
      m = median(v[p " " T[i]])
      line = line " " fmt(m) " |"
      if (m == "") continue
      if (i == 1) base = m
      if (base != "") {
        s = chains ? m / base : base / m
        if (s > best) { best = s; at = T[i] }
      }
    }
    if (base == "") line = line " NA |"
    else if (best <= 1.0001) line = line " none |"
    else line = line sprintf(" %.2fx at %s |", best, at)
    print line
  }
}' "$raw"
