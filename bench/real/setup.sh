#!/usr/bin/env bash
# Prepares the real-target benchmark: installs what is missing (Debian packages only), adds
# deb-src entries if apt has none, fetches each target's Debian source package into
# build/bench-real/src/<name>/, prepares the trees, and builds the Pollen runtime.
# Idempotent: a step whose result is already there is skipped.
# Usage: bench/real/setup.sh            (as root, or with sudo)
# Environment: POLLEN_BUILD_DIR (default ./build), BENCH_REAL_DIR (default $POLLEN_BUILD_DIR/bench-real),
#   BENCH_REAL_PINS ("package=version ...": other pinned versions), BENCH_JOBS (ninja -j, default 1)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
out=${BENCH_REAL_DIR:-$build/bench-real}
log() { echo "bench/real setup: $*"; }

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "ERROR: not root and no sudo" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive

# 1. The project's own dependencies.
bash "$root/scripts/setup.sh"

# 2. deb-src entries: without them `apt-get source` finds nothing.
need_update=0
if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  src=/etc/apt/sources.list.d/debian.sources
  [ -f "$src" ] || { echo "ERROR: no $src to copy deb-src entries from" >&2; exit 1; }
  log "adding deb-src entries (/etc/apt/sources.list.d/bench-real-src.sources)"
  sed 's/^Types:.*/Types: deb-src/' "$src" | $sudo tee /etc/apt/sources.list.d/bench-real-src.sources >/dev/null
  need_update=1
fi

# 3. Extra packages of this suite.
#    afl++: afl-clang-fast, afl-fuzz, libAFLDriver.a.  unicode-data, perl, python3, python3-six:
#    re2's Unicode tables (Debian's tarball strips them).  zlib1g-dev: libpng.  dpkg-dev:
#    dpkg-source.  llvm-14: llvm-profdata-14 / llvm-cov-14.  gnuplot-nox: the coverage plots.
#    cmake: expat's and libsndfile's configuration headers.  tcl: tclsh, which makes sqlite's amalgamation.
#    valgrind: bench/exec_instructions.sh (instructions per execution, with callgrind).
extra=(afl++ unicode-data perl python3 python3-six zlib1g-dev dpkg-dev make xz-utils llvm-14
       gnuplot-nox cmake tcl valgrind)
missing=()
for p in "${extra[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] || [ $need_update = 1 ]; then
  $sudo apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# apt-cache showsrc needs the Sources indexes; fetch them once if a deb-src entry was there
# but never updated.
if ! apt-cache showsrc libjsoncpp 2>/dev/null | grep -q '^Version:'; then
  $sudo apt-get update -qq
fi

# 4. Source packages.  Versions are pinned (the ones this suite was built and measured with);
#    if a pinned version is gone, every version apt knows is tried, newest first.  A version
#    counts when its .dsc, its orig tarball and its Debian diff all download (dpkg-source then
#    applies Debian's patches).  If none does, but an orig tarball downloaded, the upstream
#    tree is used unpatched (seen with libpng1.6: the newest security .dsc answers 404 while
#    its .orig.tar.gz downloads).
declare -A pin=(
  [libpng1.6]=1.6.39-2+deb12u5
  [libjsoncpp]=1.9.5-4
  [re2]=20220601+dfsg-1
  [expat]=2.5.0-1+deb12u2
  [lz4]=1.9.4-1
  [sqlite3]=3.40.1-2+deb12u2
  [mbedtls]=2.28.3-1
  [libsndfile]=1.2.0-1+deb12u1
  [libzstd]=1.5.4+dfsg2-5
)
# BENCH_REAL_PINS="pkg=version ..." overrides these.
for pv in ${BENCH_REAL_PINS:-}; do pin[${pv%%=*}]=${pv#*=}; done
declare -A dirname=([libpng1.6]=libpng [libjsoncpp]=jsoncpp [re2]=re2 [expat]=expat [lz4]=lz4
                   [sqlite3]=sqlite3 [mbedtls]=mbedtls [libsndfile]=libsndfile
                   [libzstd]=zstd)

fetch() {  # fetch PACKAGE DEST
  local pkg=$1 dest=$2 dl=$out/src/_downloads/$1
  if [ -f "$dest/.bench-real-source" ]; then
    log "$pkg: already in $dest ($(cat "$dest/.bench-real-source"))"
    return 0
  fi
  mkdir -p "$dl"
  local versions v dsc
  versions=$( { echo "${pin[$pkg]:-}"; apt-cache showsrc "$pkg" | sed -n 's/^Version: //p' | sort -u -r -V; } | awk 'NF && !seen[$0]++')
  for v in $versions; do
    log "$pkg: trying $v"
    # apt downloads as _apt when it can; the directory must be writable by it.
    chmod 777 "$dl" 2>/dev/null || true
    (cd "$dl" && apt-get source -qq --download-only "$pkg=$v" >"$dl/apt-$v.log" 2>&1) || true
    dsc=$dl/${pkg}_${v#*:}.dsc
    # Extract inside $dl: dpkg-source copies the orig tarball next to the tree it makes.
    rm -rf "$dl/tree"
    if [ -f "$dsc" ] && (cd "$dl" && dpkg-source --no-check -x "$(basename "$dsc")" tree >"$dl/dpkg-source-$v.log" 2>&1); then
      rm -rf "$dest" && mv "$dl/tree" "$dest"
      echo "$pkg $v (Debian source package, patches applied)" > "$dest/.bench-real-source"
      log "$pkg: $v unpacked into $dest"
      return 0
    fi
    rm -rf "$dl/tree"
    log "$pkg: $v incomplete (see $dl/apt-$v.log)"
  done
  local orig
  orig=$(ls -1 "$dl"/"${pkg}"_*.orig.tar.* 2>/dev/null | sort -V | tail -1 || true)
  if [ -n "$orig" ]; then
    rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
    tar -xf "$orig" -C "$dest.tmp" --strip-components=1
    rm -rf "$dest" && mv "$dest.tmp" "$dest"
    echo "$pkg $(basename "$orig") (upstream tarball only, no Debian patches)" > "$dest/.bench-real-source"
    log "$pkg: no complete source package; using $(basename "$orig") unpatched"
    return 0
  fi
  echo "ERROR: could not fetch any version of $pkg" >&2
  return 1
}

mkdir -p "$out/src"
for pkg in libpng1.6 libjsoncpp re2 expat lz4 sqlite3 mbedtls libsndfile libzstd; do
  fetch "$pkg" "$out/src/${dirname[$pkg]}"
done

# 5. Prepare the trees (once).
# re2: Debian's +dfsg tarball has no generated tables; generate them from unicode-data (its
# patch points re2/unicode.py at /usr/share/unicode) with the Makefile's own rules.
re2=$out/src/re2
if [ ! -s "$re2/re2/unicode_groups.cc" ] || [ ! -s "$re2/re2/unicode_casefold.cc" ] || [ ! -s "$re2/re2/perl_groups.cc" ]; then
  log "re2: generating the Unicode and Perl tables"
  grep -q '/usr/share/unicode' "$re2/re2/unicode.py" ||
    sed -i 's|^_UNICODE_DIR = .*|_UNICODE_DIR = "/usr/share/unicode"|' "$re2/re2/unicode.py"
  make -C "$re2" -s REBUILD_TABLES=1 re2/perl_groups.cc re2/unicode_casefold.cc re2/unicode_groups.cc
fi
# libpng: OSS-Fuzz's (and so FuzzBench's) build of this harness disables STDIO, WARNING and
# WRITE in scripts/pnglibconf.dfa (contrib/oss-fuzz/build.sh); do the same.
png=$out/src/libpng
if [ ! -f "$png/.bench-real-dfa" ]; then
  log "libpng: pnglibconf.dfa as contrib/oss-fuzz/build.sh sets it"
  sed -i -e "s/option STDIO/option STDIO disabled/" \
         -e "s/option WARNING /option WARNING disabled/" \
         -e "s/option WRITE enables WRITE_INT_FUNCTIONS/option WRITE disabled/" \
         "$png/scripts/pnglibconf.dfa"
  touch "$png/.bench-real-dfa"
fi

# sqlite3: the harness (test/ossfuzz.c) is built against the amalgamation, as OSS-Fuzz does;
# configure + make sqlite3.c writes it (and sqlite3.h) into the tree, once.
sq=$out/src/sqlite3
if [ ! -s "$sq/sqlite3.c" ] || [ ! -s "$sq/sqlite3.h" ]; then
  log "sqlite3: making the amalgamation (sqlite3.c)"
  rm -rf "$sq/.amalgamation" && mkdir -p "$sq/.amalgamation"
  (cd "$sq/.amalgamation" && ../configure --quiet >configure.log 2>&1 && make -s sqlite3.c >make.log 2>&1) ||
    { echo "ERROR: sqlite3's amalgamation failed; see $sq/.amalgamation/*.log" >&2; exit 1; }
  cp "$sq/.amalgamation/sqlite3.c" "$sq/.amalgamation/sqlite3.h" "$sq/"
fi

# 6. The Pollen runtime, engine and CLI, and the compiler pass.
nice -n 10 bash "$root/scripts/build.sh" -j"${BENCH_JOBS:-1}" pollen pollen_runtime pollen_routine_log
log "done: sources in $out/src; next: bench/real/build_target.sh NAME"
