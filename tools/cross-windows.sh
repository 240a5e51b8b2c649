#!/usr/bin/env bash
# Cross-builds tapestry's DLL for 64-bit Windows with Debian's mingw-w64 gcc
# (posix threads: winpthreads, as Rtools), warnings as errors.  tools/test.sh
# runs it; on its own: bash tools/cross-windows.sh (needs
# gcc-mingw-w64-x86-64; tools/deps.sh installs it).
#
# What it checks:
#  1. configure.win's script runs with the cross compiler and writes
#     src/Makevars.win (into a copy of src/; nothing here is touched);
#  2. every C file of the package compiles for x86_64-w64-mingw32 with that
#     file's flags plus -std=gnu11 -O2 -Wall -Wextra -pedantic -Werror;
#  3. the optional backends' Windows code compiles too: src/par/pp_mpi.c
#     with -DTAPESTRY_MPI against OpenMPI's mpi.h, and the ODE, DAE,
#     algebraic solver and integrate_1d files with -DTAPESTRY_SUNDIALS
#     -DTAPESTRY_GSL against Debian's SUNDIALS and GSL headers (when those
#     headers are installed);
#  4. the objects link into tapestry.dll with winpthreads, against import
#     libraries for R.dll, Rblas.dll and Rlapack.dll made here from the
#     symbols the objects use that R's headers declare (BLAS.h and
#     Lapack.h for the other two).  Any other unresolved symbol (a POSIX
#     function Windows lacks) fails the link.
#
# What it does not check: that the DLL loads or runs (no Windows here), the
# real R.dll's exports (the import libraries trust R's headers), linking
# with MS-MPI, SUNDIALS or GSL built for Windows (Debian has none: the DLL
# is linked without them, as configure.win leaves them out when absent), and
# R's own Windows headers (Linux R's headers stand in, with Rconfig.h
# written as on Windows: no visibility attribute, no alloca.h).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
CC=""
for c in x86_64-w64-mingw32-gcc-posix x86_64-w64-mingw32-gcc; do
  if command -v "$c" >/dev/null 2>&1; then CC=$c; break; fi
done
[ -n "$CC" ] || { echo "cross-windows: no mingw-w64 compiler (apt-get install gcc-mingw-w64-x86-64)"; exit 1; }
prefix=${CC%-gcc*}
DLLTOOL=${prefix}-dlltool
OBJDUMP=${prefix}-objdump
NM=${prefix}-nm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# R's headers, with Windows' Rconfig.h
rinc=$(Rscript -e 'cat(R.home("include"))')
mkdir -p "$work/rinc"
cp -r "$rinc"/. "$work/rinc"/
cat > "$work/rinc/Rconfig.h" <<'EOF'
/* Rconfig.h as R for Windows (x64) has it, for tools/cross-windows.sh */
#ifndef R_RCONFIG_H
#define R_RCONFIG_H
#ifndef R_CONFIG_H
#define HAVE_F77_UNDERSCORE 1
#define IEEE_754 1
#define R_INLINE inline
#define SUPPORT_UTF8 1
#define SUPPORT_MBCS 1
#define ENABLE_NLS 1
#ifdef USE_FC_LEN_T
#define FC_LEN_T size_t
#endif
#define SIZEOF_SIZE_T 8
#define HAVE_UINTPTR_T 1
#endif
#endif
EOF

# 1. configure.win in a copy of the sources, with the cross compiler
mkdir -p "$work/pkg"
cp -r "$here/src" "$here/configure" "$here/configure.win" "$work/pkg"/
rm -f "$work/pkg/src"/*.o "$work/pkg/src"/*/*.o "$work/pkg/src"/*.so "$work/pkg/src/Makevars"
(cd "$work/pkg" && TAPESTRY_CC="$CC" R_HOME=$(R RHOME) sh ./configure.win) | sed 's/^/  /'
mv_file="$work/pkg/src/Makevars.win"
[ -f "$mv_file" ] || { echo "cross-windows: configure.win wrote no src/Makevars.win"; exit 1; }
# the variables R's make would read from it (R's Windows values for the rest)
cat > "$work/print.mk" <<'EOF'
LAPACK_LIBS = -lRlapack
BLAS_LIBS = -lRblas
FLIBS = -lgfortran -lquadmath -lm
print:
	@echo "OBJECTS=$(OBJECTS)"
	@echo "PKG_CPPFLAGS=$(PKG_CPPFLAGS)"
	@echo "PKG_CFLAGS=$(PKG_CFLAGS)"
	@echo "PKG_LIBS=$(PKG_LIBS)"
EOF
vars=$(make -s -C "$work/pkg/src" -f Makevars.win -f "$work/print.mk" print)
get() { echo "$vars" | sed -n "s/^$1=//p"; }
objects=$(get OBJECTS); cppflags=$(get PKG_CPPFLAGS); cflags=$(get PKG_CFLAGS); libs=$(get PKG_LIBS)
echo "cross-windows: $CC, $(echo $objects | wc -w) objects; PKG_CPPFLAGS=$cppflags PKG_LIBS=$libs"

# 2. every source, warnings as errors
strict="-std=gnu11 -O2 -Wall -Wextra -pedantic -Werror"
fails=0
cd "$work/pkg/src"
for o in $objects; do
  c=${o%.o}.c
  if ! $CC $strict -I"$work/rinc" -DNDEBUG $cppflags $cflags -c "$c" -o "$o" 2> "$work/cc.log"; then
    echo "cross-windows: $c does not compile:"; cat "$work/cc.log"; fails=$((fails + 1))
  fi
done

# 3. the optional backends' Windows code, compiled only
opt="$work/optinc"
mkdir -p "$opt"
mpi_inc=""
for d in /usr/lib/x86_64-linux-gnu/openmpi/include /usr/include/x86_64-linux-gnu/mpich /usr/include/mpich; do
  [ -f "$d/mpi.h" ] && { mpi_inc=$d; break; }
done
if [ -n "$mpi_inc" ]; then
  mkdir -p "$opt/mpi" && cp -r "$mpi_inc"/. "$opt/mpi"/
  if ! $CC $strict -I"$work/rinc" $cppflags $cflags -DTAPESTRY_MPI -I"$opt/mpi" -c par/pp_mpi.c -o "$work/pp_mpi.o" 2> "$work/cc.log"; then
    echo "cross-windows: par/pp_mpi.c with MPI does not compile:"; cat "$work/cc.log"; fails=$((fails + 1))
  else
    echo "cross-windows: par/pp_mpi.c compiles with -DTAPESTRY_MPI ($mpi_inc/mpi.h)"
  fi
else
  echo "cross-windows: no mpi.h here: the MPI backend's Windows code was not compiled"
fi
have_opt=1
for d in sundials cvodes idas arkode kinsol nvector sunmatrix sunlinsol gsl; do
  if [ -d "/usr/include/$d" ]; then cp -r "/usr/include/$d" "$opt"/; else have_opt=0; fi
done
cp /usr/include/sundials_*.h "$opt"/ 2>/dev/null || true
if [ "$have_opt" = 1 ]; then
  for c in tree/li_ode.c tree/li_dae.c tree/li_solve.c tree/li_integrate.c tree/li_sundials.c; do
    if ! $CC $strict -I"$work/rinc" $cppflags $cflags -DTAPESTRY_SUNDIALS -DTAPESTRY_GSL -I"$opt" -c "$c" -o "$work/opt.o" 2> "$work/cc.log"; then
      echo "cross-windows: $c with SUNDIALS and GSL does not compile:"; cat "$work/cc.log"; fails=$((fails + 1))
    fi
  done
  echo "cross-windows: the SUNDIALS and GSL files compile with -DTAPESTRY_SUNDIALS -DTAPESTRY_GSL"
else
  echo "cross-windows: no SUNDIALS/GSL headers here: their Windows code was not compiled"
fi
[ "$fails" -eq 0 ] || { echo "cross-windows: $fails file(s) failed"; exit 1; }

# 4. link: import libraries for R's DLLs from the symbols R's headers declare
words() { grep -ohE '\b[A-Za-z_][A-Za-z0-9_]*\b' "$@" | sort -u; }
words "$work/rinc"/*.h "$work/rinc"/R_ext/*.h > "$work/r.words"
words "$work/rinc/R_ext/BLAS.h" > "$work/blas.words"
words "$work/rinc/R_ext/Lapack.h" > "$work/lapack.words"
$NM -u $objects | awk 'NF == 2 && $1 == "U" {print $2}' | sort -u > "$work/undef"
$NM --defined-only $objects | awk 'NF == 3 {print $3}' | sort -u > "$work/def"
comm -23 "$work/undef" "$work/def" > "$work/need"
: > "$work/R.def.body"; : > "$work/Rblas.def.body"; : > "$work/Rlapack.def.body"
while read -r s; do
  base=${s%_}
  data=${s#__imp_}        # R's variables (LibExtern) are imported as data
  if [ "$s" != "$base" ] && grep -qx "$base" "$work/blas.words"; then echo "$s" >> "$work/Rblas.def.body"
  elif [ "$s" != "$base" ] && grep -qx "$base" "$work/lapack.words"; then echo "$s" >> "$work/Rlapack.def.body"
  elif [ "$s" != "$data" ] && grep -qx "$data" "$work/r.words"; then echo "$data DATA" >> "$work/R.def.body"
  elif grep -qx "$s" "$work/r.words"; then echo "$s" >> "$work/R.def.body"
  fi
done < "$work/need"
mkdir -p "$work/lib"
for dll in R Rblas Rlapack; do
  { echo "LIBRARY $dll.dll"; echo "EXPORTS"; cat "$work/$dll.def.body"; } > "$work/$dll.def"
  $DLLTOOL -d "$work/$dll.def" -l "$work/lib/lib$dll.dll.a" -D "$dll.dll"
done
# gfortran and quadmath come with Rtools, not with Debian's cross compiler:
# the objects use neither (no Fortran in src/), so empty archives stand in
for l in gfortran quadmath; do
  $CC -c -x c /dev/null -o "$work/empty.o"
  ${prefix}-ar rcs "$work/lib/lib$l.a" "$work/empty.o"
done
echo "cross-windows: import libraries: R.dll $(wc -l < "$work/R.def.body") symbols, Rblas.dll $(wc -l < "$work/Rblas.def.body"), Rlapack.dll $(wc -l < "$work/Rlapack.def.body")"
if ! $CC -shared -static-libgcc -o tapestry.dll $objects -L"$work/lib" $libs -lR \
     -Wl,--no-undefined 2> "$work/ld.log"; then
  echo "cross-windows: tapestry.dll does not link:"; cat "$work/ld.log"; exit 1
fi
imports=$($OBJDUMP -p tapestry.dll | sed -n 's/^\s*DLL Name: //p' | tr '\n' ' ')
echo "cross-windows: tapestry.dll links ($(wc -c < tapestry.dll) bytes); it imports: $imports"
case "$imports" in
  *winpthread*) ;;
  *) $NM tapestry.dll 2>/dev/null | grep -q "pthread_create" || {
       echo "cross-windows: tapestry.dll has no pthread_create from winpthreads"; exit 1; } ;;
esac
echo "cross-windows: OK"
