#!/usr/bin/env bash
# Builds one benchmark target the five ways the suite compares, from the sources that
# bench/real/setup.sh fetched, into build/bench-real/targets/NAME/:
#
#   pollen       harness + library with -fsanitize=fuzzer-no-link, linked with the Pollen
#                runtime exactly as CMake links examples/keyword_fuzzer (read from build.ninja)
#   pollen-routines  the same, compiled with Pollen's compiler plugin (-fpass-plugin=
#                build/compiler/libpollen_routine_log.so: the literals the target compares
#                against embedded as a dictionary, and its calls logged)
#   libfuzzer    library with -fsanitize=fuzzer-no-link, harness and link with -fsanitize=fuzzer
#   afl          afl-clang-fast(++) (PCGUARD), persistent mode through AFL++'s libAFLDriver.a;
#                also writes afl-dict2file.dict (AFL_LLVM_DICT2FILE)
#   afl-cmplog   the same with AFL_LLVM_CMPLOG=1 (afl-fuzz -c)
#   cov          -fprofile-instr-generate -fcoverage-mapping, main = engine/coverage_main/coverage_main.cc
#
# (the default: the first five; pollen-routines on request) plus dict (the target's own dictionary, if its tree has one), seeds/ (its seed corpus, or
# one file "hi" as FuzzBench does for targets without seeds) and BUILD_INFO.
# No sanitizers (coverage experiments, as FuzzBench). Base flags, every build:
#   -O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#
# Usage: bench/real/build_target.sh NAME [FLAVOR...]
#   NAME   libpng | jsoncpp | re2 | expat | lz4 | sqlite3 | mbedtls | libsndfile | zstd | keyword | magic4 (examples/NAME.cc, planted bug armed) | empty
#          | puzzle_* (bench/puzzles/NAME.cc)
#   FLAVOR pollen pollen-routines libfuzzer afl afl-cmplog cov (default: all but pollen-routines)
# Environment: BENCH_JOBS (make -j, default 1), POLLEN_BUILD_DIR, BENCH_REAL_DIR.
# Runs at nice 10. Each flavor is built from scratch in build/bench-real/work/NAME/FLAVOR
# and published by rename; logs in build/bench-real/logs/NAME-FLAVOR.log.
set -euo pipefail
if [ "$(nice)" -lt 10 ]; then exec nice -n $((10 - $(nice))) "$0" "$@"; fi

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${POLLEN_BUILD_DIR:-$root/build}
out=${BENCH_REAL_DIR:-$build/bench-real}
jobs=${BENCH_JOBS:-1}
all_flavors=(pollen pollen-routines libfuzzer afl afl-cmplog cov)
default_flavors=(pollen libfuzzer afl afl-cmplog cov)

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h | --help) usage; exit 0 ;; esac
name=$1; shift
flavors=("$@")
[ ${#flavors[@]} -gt 0 ] || flavors=("${default_flavors[@]}")
for f in "${flavors[@]}"; do
  [[ " ${all_flavors[*]} " == *" $f "* ]] || { echo "ERROR: unknown flavor $f" >&2; exit 2; }
done

case "$name" in
  libpng | jsoncpp | re2 | expat | lz4 | sqlite3 | mbedtls | libsndfile | zstd)
    src=$out/src/$name
    [ -f "$src/.bench-real-source" ] || { echo "ERROR: $src missing: run bench/real/setup.sh" >&2; exit 1; } ;;
  keyword | magic4 | empty)
    src=$root/examples
    [ -f "$src/$name.cc" ] || { echo "ERROR: no $src/$name.cc" >&2; exit 1; } ;;
  puzzle_*)
    src=$root/bench/puzzles
    [ -f "$src/$name.cc" ] || { echo "ERROR: no $src/$name.cc" >&2; exit 1; } ;;
  *) echo "ERROR: unknown target $name (libpng, jsoncpp, re2, expat, lz4, sqlite3, mbedtls, libsndfile, zstd, keyword, magic4, empty, puzzle_*)" >&2; exit 2 ;;
esac

dest=$out/targets/$name
mkdir -p "$dest" "$out/logs" "$out/work/$name"
log() { echo "bench/real build $name: $*" >&2; }

base=(-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
afl_driver=/usr/lib/afl/libAFLDriver.a

# The Pollen link line: everything after "-o examples/keyword_fuzzer" in the command CMake
# generated (whole-archive runtime, engine, base, schema, capnp, kj); relative paths are relative
# to the build directory.
pollen_link_args() {
  local cmd libs a
  cmd=$(ninja -C "$build" -t commands keyword | tail -1)
  libs=$(sed -n 's|.* -o examples/keyword_fuzzer \(.*\) && :$|\1|p' <<<"$cmd")
  if [ -z "$libs" ] || [[ "$libs" != *libpollen_runtime.a* ]]; then
    echo "ERROR: no Pollen link line for examples/keyword_fuzzer in $build/build.ninja: $cmd" >&2
    return 1
  fi
  pollen_libs=()
  for a in $libs; do
    case "$a" in
      -* | /*) pollen_libs+=("$a") ;;
      *) pollen_libs+=("$build/$a") ;;
    esac
  done
  for a in "$build/engine/runtime/libpollen_runtime.a" "$build/engine/libpollen_engine.a" \
    "$build/base/libpollen_base.a" "$build/schema/libpollen_schema.a"; do
    [ -f "$a" ] || { echo "ERROR: $a missing: run scripts/build.sh pollen pollen_runtime" >&2; return 1; }
  done
}

# --- the library and harness of each target ---------------------------------------------
# archive_objs W ARCHIVE EXTRA FILE...: compiles each C file (.c, with $CC and $CFLAGS) or
# C++ file (.cpp, with $CXX and $CXXFLAGS), with the flags of the array named EXTRA, into
# W/NAME.o, $jobs at a time (each waited for by pid, so a failed one fails the flavor), and
# puts them into ARCHIVE.
archive_objs() {
  local w=$1 archive=$2 f o p objs=() pids=()
  local -n extra=$3
  shift 3
  for f in "$@"; do
    o=$w/$(basename "${f%.*}").o
    if [[ "$f" == *.cpp ]]; then
      "$CXX" "${CXXFLAGS[@]}" "${extra[@]}" -c "$f" -o "$o" &
    else
      "$CC" "${CFLAGS[@]}" "${extra[@]}" -c "$f" -o "$o" &
    fi
    pids+=($!) && objs+=("$o")
    if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  done
  for p in "${pids[@]}"; do wait "$p"; done
  llvm-ar-14 rcs "$archive" "${objs[@]}"
}

# build_lib W: builds the code under test in work dir W with $CC/$CXX/$CFLAGS/$CXXFLAGS and
# sets lib_args (what to link), harness (the harness source) and harness_flags.
build_lib() {
  local w=$1
  case "$name" in
    libpng)
      # Out-of-tree autotools build of the static library (configure --disable-shared); the
      # tree's pnglibconf.dfa was edited by setup.sh as OSS-Fuzz's build.sh does.
      mkdir -p "$w/lib"
      # configure's test programs stay out of the AFL dictionary.
      (cd "$w/lib" && env -u AFL_LLVM_DICT2FILE \
        "$src/configure" --quiet --disable-shared CC="$CC" CFLAGS="${CFLAGS[*]}" \
        && make -s -j"$jobs" libpng16.la)
      lib_args=("$w/lib/.libs/libpng16.a" -lz)
      harness=$src/contrib/oss-fuzz/libpng_read_fuzzer.cc
      harness_flags=(-std=c++11 -I"$w/lib" -I"$src")
      ;;
    jsoncpp)
      # The three library files compile directly.
      # shellcheck disable=SC2034 # archive_objs reads it by name
      local jflags=(-I"$src/include")
      archive_objs "$w" "$w/libjsoncpp.a" jflags "$src"/src/lib_json/json_{reader,value,writer}.cpp
      lib_args=("$w/libjsoncpp.a")
      harness=$src/src/test_lib_json/fuzz.cpp
      harness_flags=(-I"$src/include" -I"$src/src/test_lib_json")
      ;;
    re2)
      # re2's Makefile builds into obj/ inside the tree: build in a copy. The generated
      # Unicode/Perl tables are already in the tree (setup.sh).
      cp -a "$src" "$w/re2"
      make -s -C "$w/re2" -j"$jobs" obj/libre2.a CXX="$CXX" CXXFLAGS="${CXXFLAGS[*]}"
      lib_args=("$w/re2/obj/libre2.a" -lpthread)
      harness=$src/re2/fuzzing/re2_fuzzer.cc
      harness_flags=(-I"$w/re2" -I"$src/re2/fuzzing/compiler-rt/include")
      ;;
    expat)
      # The static library with expat's own CMake (it writes expat_config.h); its checks'
      # test programs stay out of the AFL dictionary. The harness as expat's
      # EXPAT_BUILD_FUZZERS builds it, for UTF-8.
      (env -u AFL_LLVM_DICT2FILE cmake -S "$src/expat" -B "$w/lib" -G Ninja \
        -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="${CFLAGS[*]}" -DCMAKE_BUILD_TYPE=NoConfig \
        -DEXPAT_SHARED_LIBS=OFF -DEXPAT_BUILD_TOOLS=OFF -DEXPAT_BUILD_EXAMPLES=OFF \
        -DEXPAT_BUILD_TESTS=OFF -DEXPAT_BUILD_DOCS=OFF -DEXPAT_BUILD_PKGCONFIG=OFF >/dev/null)
      # Debian's security patches test "#if XML_DTD == 1", as autotools defines it; CMake's
      # header defines XML_DTD and XML_NS empty.
      sed -i 's/^#define \(XML_DTD\|XML_NS\)$/#define \1 1/' "$w/lib/expat_config.h"
      ninja -C "$w/lib" -j"$jobs" expat >/dev/null
      lib_args=("$w/lib/libexpat.a")
      harness=$src/expat/fuzz/xml_parse_fuzzer.c
      harness_flags=(-I"$src/expat/lib" -I"$w/lib" -DENCODING_FOR_FUZZING=UTF-8)
      ;;
    lz4)
      # The frame decompressor (checksummed header and blocks) with lz4's own OSS-Fuzz
      # helpers; the library files compile directly.
      # shellcheck disable=SC2034 # archive_objs reads it by name
      local lz4flags=(-I"$src/lib")
      archive_objs "$w" "$w/liblz4.a" lz4flags "$src"/lib/{lz4,lz4hc,lz4frame,xxhash}.c \
        "$src"/ossfuzz/{lz4_helpers,fuzz_data_producer}.c
      lib_args=("$w/liblz4.a")
      harness=$src/ossfuzz/decompress_frame_fuzzer.c
      harness_flags=(-I"$src/lib" -I"$src/ossfuzz")
      ;;
    sqlite3)
      # The amalgamation (setup.sh) with OSS-Fuzz's (and FuzzBench's) defines for this harness.
      "$CC" "${CFLAGS[@]}" -DSQLITE_MAX_LENGTH=128000000 -DSQLITE_MAX_SQL_LENGTH=128000000 \
        -DSQLITE_MAX_MEMORY=25000000 -DSQLITE_PRINTF_PRECISION_LIMIT=1048576 -DSQLITE_DEBUG=1 \
        -DSQLITE_MAX_PAGE_COUNT=16384 -c "$src/sqlite3.c" -o "$w/sqlite3.o"
      lib_args=("$w/sqlite3.o" -lpthread -ldl -lm)
      harness=$src/test/ossfuzz.c
      harness_flags=(-I"$src")
      ;;
    mbedtls)
      # X.509 certificate parsing (DER and PEM: nested ASN.1 lengths, OIDs) with the default
      # configuration (include/mbedtls/config.h); every library file compiles directly and
      # the link takes what the harness needs from the archive.
      # shellcheck disable=SC2034 # archive_objs reads it by name
      local mbflags=(-I"$src/include" -I"$src/library")
      archive_objs "$w" "$w/libmbedtls.a" mbflags "$src"/library/*.c
      lib_args=("$w/libmbedtls.a")
      harness=$src/programs/fuzz/fuzz_x509crt.c
      harness_flags=(-I"$src/include")
      ;;
    libsndfile)
      # The static library with libsndfile's own CMake (it writes config.h), without the
      # external codecs (FLAC, Ogg, Vorbis, Opus, MPEG: other packages) and without its
      # programs, examples and tests; the checks' test programs stay out of the AFL
      # dictionary, and those it runs write no coverage profile into the working directory.
      # The harness as its OSS-Fuzz build (ossfuzz/ossfuzz.sh) builds it.
      (env -u AFL_LLVM_DICT2FILE LLVM_PROFILE_FILE=/dev/null cmake -S "$src" -B "$w/lib" -G Ninja \
        -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_FLAGS="${CFLAGS[*]}" \
        -DCMAKE_BUILD_TYPE=NoConfig -DBUILD_SHARED_LIBS=OFF -DBUILD_PROGRAMS=OFF \
        -DBUILD_EXAMPLES=OFF -DBUILD_TESTING=OFF -DENABLE_EXTERNAL_LIBS=OFF -DENABLE_MPEG=OFF \
        -DENABLE_CPACK=OFF -DENABLE_PACKAGE_CONFIG=OFF -DINSTALL_PKGCONFIG_MODULE=OFF \
        -DINSTALL_MANPAGES=OFF >/dev/null)
      ninja -C "$w/lib" -j"$jobs" sndfile >/dev/null
      lib_args=("$w/lib/libsndfile.a" -lm)
      harness=$src/ossfuzz/sndfile_fuzzer.cc
      harness_flags=(-I"$src/include" -I"$src/ossfuzz")
      ;;
    zstd)
      # The decompressor of every format (the current one and the legacy v0.1-v0.7) with
      # zstd's own fuzzing helpers and the defines of its tests/fuzz/Makefile (legacy support,
      # DEBUGLEVEL 2: asserts on); C only (ZSTD_DISABLE_ASM: an assembly loop has no edges
      # for any fuzzer to see).
      local zflags=(-DZSTD_LEGACY_SUPPORT=1 -DDEBUGLEVEL=2 -DXXH_NAMESPACE=ZSTD_ -DZSTD_DISABLE_ASM
        -I"$src/lib" -I"$src/lib/common" -I"$src/lib/legacy" -I"$src/lib/decompress" -I"$src/tests/fuzz")
      archive_objs "$w" "$w/libzstd.a" zflags "$src"/lib/{common,decompress,legacy}/*.c \
        "$src"/tests/fuzz/{fuzz_helpers,fuzz_data_producer}.c
      lib_args=("$w/libzstd.a" -lpthread)
      harness=$src/tests/fuzz/simple_decompress.c
      harness_flags=("${zflags[@]}")
      ;;
    keyword | magic4 | empty)
      lib_args=()
      harness=$src/$name.cc
      harness_flags=(-I"$src")
      ;;
    puzzle_*)
      lib_args=()
      harness=$src/$name.cc
      harness_flags=(-std=c++17 -I"$src" -I"$root/examples")
      ;;
  esac
}

build_flavor() {
  local flavor=$1 w=$out/work/$name/$1
  rm -rf "$w" && mkdir -p "$w"
  CC=clang-14 CXX=clang++-14
  local hflags=() link_flags=() extra=() main_obj=()
  unset AFL_LLVM_DICT2FILE AFL_LLVM_CMPLOG
  case "$flavor" in
    pollen | pollen-routines)
      pollen_link_args
      CFLAGS=("${base[@]}" -fsanitize=fuzzer-no-link)
      if [ "$flavor" = pollen-routines ]; then
        local plugin=$build/compiler/libpollen_routine_log.so
        [ -f "$plugin" ] || { echo "ERROR: $plugin missing: run scripts/build.sh pollen_routine_log" >&2; return 1; }
        CFLAGS+=(-fpass-plugin="$plugin")
      fi
      hflags=("${CFLAGS[@]}")
      link_flags=(-fsanitize=fuzzer-no-link)
      extra=("${pollen_libs[@]}") ;;
    libfuzzer)
      CFLAGS=("${base[@]}" -fsanitize=fuzzer-no-link)
      hflags=("${base[@]}" -fsanitize=fuzzer)
      link_flags=(-fsanitize=fuzzer) ;;
    afl | afl-cmplog)
      [ -f "$afl_driver" ] || { echo "ERROR: $afl_driver missing: apt-get install afl++" >&2; return 1; }
      CC=afl-clang-fast CXX=afl-clang-fast++
      export AFL_QUIET=1 AFL_LLVM_USE_TRACE_PC=1  # as FuzzBench: PCGUARD, no compiler chatter
      if [ "$flavor" = afl ]; then
        export AFL_LLVM_DICT2FILE=$w/afl-dict2file.dict  # absolute path; appended to
      else
        export AFL_LLVM_CMPLOG=1
      fi
      CFLAGS=("${base[@]}")
      hflags=("${base[@]}")
      extra=("$afl_driver") ;;
    cov)
      CFLAGS=("${base[@]}" -fprofile-instr-generate -fcoverage-mapping)
      hflags=("${CFLAGS[@]}")
      link_flags=(-fprofile-instr-generate)
      # The main is not instrumented: it does not show in the coverage reports.
      clang++-14 "${base[@]}" -std=c++17 -c "$root/engine/coverage_main/coverage_main.cc" -o "$w/coverage_main.o"
      main_obj=("$w/coverage_main.o") ;;
  esac
  CXXFLAGS=("${CFLAGS[@]}")
  build_lib "$w"
  local hcc=$CXX
  [[ "$harness" != *.c ]] || hcc=$CC  # a C harness (expat, lz4, sqlite3, mbedtls) is compiled as C
  "$hcc" "${hflags[@]}" "${harness_flags[@]}" -c "$harness" -o "$w/harness.o"
  # The harness is linked as an object file, never from an archive (docs/targets.md).
  "$CXX" "${base[@]}" "${link_flags[@]}" "$w/harness.o" "${main_obj[@]}" "${lib_args[@]}" \
    "${extra[@]}" -o "$w/$flavor"
  unset AFL_QUIET AFL_LLVM_USE_TRACE_PC AFL_LLVM_DICT2FILE AFL_LLVM_CMPLOG
  {
    echo "flavor: $flavor"
    echo "compiler: $CC / $CXX"
    echo "library flags: ${CFLAGS[*]}"
    echo "harness: $harness"
    echo "harness flags: ${hflags[*]} ${harness_flags[*]}"
    echo "link: ${link_flags[*]} harness.o ${main_obj[*]} ${lib_args[*]} ${extra[*]}"
  } > "$w/$flavor.info"
  # Publish by rename, so that a running benchmark never sees a half-written binary.
  cp -f "$w/$flavor" "$dest/.$flavor.tmp" && mv -f "$dest/.$flavor.tmp" "$dest/$flavor"
  if [ -f "$w/afl-dict2file.dict" ]; then
    cp -f "$w/afl-dict2file.dict" "$dest/.dict2file.tmp" && mv -f "$dest/.dict2file.tmp" "$dest/afl-dict2file.dict"
  fi
}

# --- dictionary and seeds ------------------------------------------------------------------
copy_dict_and_seeds() {
  local dict="" s
  case "$name" in
    libpng) dict=$src/contrib/oss-fuzz/png.dict ;;
    jsoncpp) dict=$src/src/test_lib_json/fuzz.dict ;;
    re2 | expat | lz4 | sqlite3 | mbedtls | libsndfile | zstd | keyword | magic4 | empty | puzzle_*) dict="" ;;  # none in the tree
  esac
  rm -f "$dest/dict"
  [ -z "$dict" ] || cp "$dict" "$dest/dict"
  rm -rf "$dest/seeds.tmp" && mkdir -p "$dest/seeds.tmp"
  case "$name" in
    libpng)
      # Every *.png of the tree outside crashers/ (OSS-Fuzz's seed corpus); the file name
      # keeps the path, since several directories have files of the same name.
      (cd "$src" && find . -name '*.png' -not -path '*/crashers/*' -type f | sort) |
        while read -r s; do cp "$src/$s" "$dest/seeds.tmp/$(sed 's|^\./||; s|/|_|g' <<<"$s")"; done ;;
    jsoncpp)
      cp "$src"/test/data/*.json "$dest/seeds.tmp/" ;;
    mbedtls)
      # The tree's test certificates, PEM and DER (what OSS-Fuzz's build.sh zips as this
      # harness's seed corpus), named by path: dir*/ repeat top-level names.
      (cd "$src" && ls tests/data_files/*.crt tests/data_files/dir*/*.crt | sort) |
        while read -r s; do cp "$src/$s" "$dest/seeds.tmp/$(sed 's|/|_|g' <<<"$s")"; done ;;
  esac
  # AFL++ needs at least one seed; FuzzBench gives seedless targets a file "hi".
  if [ -z "$(ls -A "$dest/seeds.tmp")" ]; then printf 'hi' > "$dest/seeds.tmp/hi"; fi
  rm -rf "$dest/seeds" && mv "$dest/seeds.tmp" "$dest/seeds"
}

copy_dict_and_seeds
status=0
for flavor in "${flavors[@]}"; do
  logf=$out/logs/$name-$flavor.log
  log "$flavor (log: $logf)"
  start=$(date +%s)
  # Not "if (build_flavor ...)": in a condition, set -e would be off inside the subshell and
  # a failed step would go unnoticed until the link.
  (build_flavor "$flavor") >"$logf" 2>&1 &
  rc=0
  wait $! || rc=$?
  if [ $rc = 0 ]; then
    log "$flavor built in $(( $(date +%s) - start )) s: $dest/$flavor"
  else
    log "$flavor FAILED after $(( $(date +%s) - start )) s; last lines of $logf:"
    tail -n 15 "$logf" >&2
    status=1
  fi
done
{
  echo "target: $name"
  if [ -f "$src/.bench-real-source" ]; then echo "source: $(cat "$src/.bench-real-source")"; else echo "source: ${src#$root/}/$name.cc"; fi
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  for f in "${all_flavors[@]}"; do
    [ -f "$out/work/$name/$f/$f.info" ] && { echo; cat "$out/work/$name/$f/$f.info"; }
  done
} > "$dest/BUILD_INFO"
exit $status
