#!/usr/bin/env bash
# Mutation check: plants the small bugs of scripts/mutations.txt one at a
# time in a scratch copy of the tree, rebuilds only the targets each one
# names, runs its ctest subset, and restores the file. A mutant is killed
# when a test fails (or times out); it survives when every test passes.
# Ends with `killed K of N` and the survivors. A tool, not a CI step
# (docs/testing.md).
#
#   scripts/mutation_check.sh [--list FILE] [--only ID[,ID...]] [--scratch DIR]
#                             [--jobs N] [--timeout SECONDS] [--no-baseline] [--check]
#
# --check only verifies that every PATTERN occurs exactly once (no build).
#
# The scratch copy (default /tmp/tessera-mutation-$USER/src, build dir
# src/build) is refreshed from this checkout's working tree byte for
# byte, so only changed files get a new mtime and the build stays
# incremental across runs; the checkout itself is never written. A
# restored file is copied back (new mtime), so no object built from a
# mutant outlives it.
#
# List format, one mutation per line ('#' comments, blank lines ignored):
#   ID @@ FILE @@ PATTERN @@ REPLACEMENT @@ TARGETS @@ TEST_REGEX
# PATTERN is literal text that must occur exactly once in FILE; "\n" in
# PATTERN or REPLACEMENT stands for a newline. TARGETS are the CMake
# targets to rebuild (space separated); TEST_REGEX is passed to ctest -R.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/.." && pwd)"
list="$here/mutations.txt"
only=""
scratch="/tmp/tessera-mutation-${USER:-$(id -un)}"
jobs=2
timeout=300
baseline=1
check=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --list) list="$2"; shift 2 ;;
    --only) only=",$2,"; shift 2 ;;
    --scratch) scratch="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --no-baseline) baseline=0; shift ;;
    --check) check=1; shift ;;
    -h|--help) sed -n 2,26p "$0"; exit 0 ;;
    *) echo "mutation_check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -f "$list" ]] || { echo "mutation_check: no list '$list'" >&2; exit 2; }
command -v python3 >/dev/null || { echo "mutation_check: needs python3" >&2; exit 2; }

mkdir -p "$scratch"

# Parse the list into parallel arrays.
ids=() files=() patterns=() replacements=() targets=() regexes=()
while IFS= read -r line || [[ -n "$line" ]]; do
  [[ -z "${line// }" || "$line" =~ ^[[:space:]]*# ]] && continue
  mapfile -t f < <(python3 -c 'import sys
parts = [p.strip() for p in sys.argv[1].split("@@")]
if len(parts) != 6: sys.exit(1)
print("\n".join(p.replace("\n", " ") for p in parts))' "$line") ||
    { echo "mutation_check: bad line (want 6 fields split by @@): $line" >&2; exit 2; }
  id="${f[0]}"
  if [[ -n "$only" && "$only" != *",$id,"* ]]; then continue; fi
  ids+=("$id"); files+=("${f[1]}"); patterns+=("${f[2]}"); replacements+=("${f[3]}")
  targets+=("${f[4]}"); regexes+=("${f[5]}")
done <"$list"
n=${#ids[@]}
[[ $n -gt 0 ]] || { echo "mutation_check: no mutations selected" >&2; exit 2; }

# Replaces the one occurrence of PATTERN in FILE; exit 3 when it occurs
# zero or several times (the list has gone stale: fix the line).
apply() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys
path, pat, rep = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
text = open(path, encoding="utf-8").read()
count = text.count(pat)
if count != 1:
    print(f"pattern occurs {count} times in {path}", file=sys.stderr)
    sys.exit(3)
open(path, "w", encoding="utf-8").write(text.replace(pat, rep, 1))
EOF
}

if [[ $check -eq 1 ]]; then
  stale=0
  for ((i = 0; i < n; ++i)); do
    cp "$src/${files[$i]}" "$scratch/check" 2>/dev/null || { echo "STALE ${ids[$i]}: no file ${files[$i]}"; stale=1; continue; }
    apply "$scratch/check" "${patterns[$i]}" "${replacements[$i]}" 2>"$scratch/check.err" ||
      { echo "STALE ${ids[$i]}: $(cat "$scratch/check.err")"; stale=1; }
  done
  echo "checked $n mutations"
  exit $stale
fi

work="$scratch/src"
build="$work/build"
logs="$scratch/logs"
mkdir -p "$work" "$logs"
# Mirror the checkout (its working tree, not only its commits) into the
# scratch tree: a file is copied only when its bytes differ, so unchanged
# files keep their mtime and the build stays incremental.
python3 - "$src" "$work" <<'PYEOF'
import filecmp, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
skip = lambda name: name == ".git" or name == "build" or name.startswith("build-")
seen = set()
for root, dirs, files in os.walk(src):
    rel = os.path.relpath(root, src)
    if rel == ".":
        dirs[:] = [d for d in dirs if not skip(d)]
    os.makedirs(os.path.join(dst, rel), exist_ok=True)
    for f in files:
        a, b = os.path.join(root, f), os.path.join(dst, rel, f)
        if os.path.islink(a) or not os.path.isfile(a):
            continue
        seen.add(os.path.normpath(os.path.join(rel, f)))
        if not os.path.exists(b) or not filecmp.cmp(a, b, shallow=False):
            shutil.copy2(a, b)
            os.utime(b)  # new mtime: whatever was built from the old bytes is rebuilt
for root, dirs, files in os.walk(dst):
    rel = os.path.relpath(root, dst)
    if rel == ".":
        dirs[:] = [d for d in dirs if not skip(d)]
    for f in files:
        if os.path.normpath(os.path.join(rel, f)) not in seen:
            os.remove(os.path.join(root, f))
PYEOF

# The build dir sits inside the scratch tree, as build/ sits inside a
# worktree, so ccache with base_dir shares objects between the two.
export CCACHE_BASEDIR="$work" CCACHE_NOHASHDIR=1
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi
# Configured every run: new targets in the mirrored CMake files must exist
# before `cmake --build --target` names them.
[[ -f "$build/CMakeCache.txt" ]] || echo "mutation_check: configuring $build (the first run builds everything it needs)"
cmake -S "$work" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$logs/configure.log" 2>&1 ||
  { echo "mutation_check: configure failed, see $logs/configure.log" >&2; exit 2; }

build_targets() {  # $1 = log file, rest = targets
  local log="$1"; shift
  nice cmake --build "$build" -j"$jobs" --target "$@" >"$log" 2>&1
}

run_tests() {  # $1 = log file, $2 = regex
  nice ctest --test-dir "$build" -j"$jobs" --timeout "$timeout" -R "$2" >"$1" 2>&1
  local rc=$?
  if grep -q "No tests were found" "$1"; then return 4; fi
  return $rc
}

# A run killed mid-build can leave an object compiled from a mutant that is
# newer than the restored source (the compiler was still writing it): the
# file named in in-progress is touched again, so it is rebuilt.
if [[ -f "$scratch/in-progress" ]]; then
  stale="$(cat "$scratch/in-progress")"
  [[ -f "$stale" ]] && touch "$stale"
  rm -f "$scratch/in-progress"
fi

if [[ $baseline -eq 1 ]]; then
  echo "mutation_check: baseline (unmutated) build and tests of every listed target"
  all_targets=$(printf '%s\n' "${targets[@]}" | tr ' ' '\n' | sort -u | tr '\n' ' ')
  # shellcheck disable=SC2086
  build_targets "$logs/baseline-build.log" $all_targets ||
    { echo "mutation_check: the unmutated tree does not build, see $logs/baseline-build.log" >&2; exit 2; }
  all_regex=$(printf '%s\n' "${regexes[@]}" | sort -u | paste -sd'|')
  run_tests "$logs/baseline-test.log" "$all_regex" ||
    { echo "mutation_check: tests fail on the unmutated tree, see $logs/baseline-test.log" >&2; exit 2; }
fi

killed=0 counted=0
survivors=() problems=()
# An interrupted run leaves no mutant behind (the next run's mirror step
# would repair it anyway, since the bytes differ from the checkout's).
current=""
restore() {
  if [[ -n "$current" ]]; then cat "$scratch/original" >"$current"; touch "$current"; current=""; fi
}
# Interrupted: restore, but keep in-progress, since a compiler may still
# be writing an object from the mutant; the next run touches the file.
trap 'restore; exit 130' INT TERM
trap restore EXIT
for ((i = 0; i < n; ++i)); do
  id="${ids[$i]}" file="$work/${files[$i]}"
  log="$logs/$id"
  if [[ ! -f "$file" ]]; then
    problems+=("$id: no file ${files[$i]}"); echo "STALE    $id (no file ${files[$i]})"; continue
  fi
  cp -p "$file" "$scratch/original"
  current="$file"
  echo "$file" >"$scratch/in-progress"
  if ! apply "$file" "${patterns[$i]}" "${replacements[$i]}" 2>"$log.apply"; then
    current=""
    problems+=("$id: $(cat "$log.apply")"); echo "STALE    $id ($(cat "$log.apply"))"; continue
  fi
  start=$(date +%s)
  # shellcheck disable=SC2086
  if ! build_targets "$log.build" ${targets[$i]}; then
    verdict="STILLBORN"  # does not compile: not counted
    problems+=("$id: the mutant does not compile ($log.build)")
  else
    run_tests "$log.test" "${regexes[$i]}"
    rc=$?
    counted=$((counted + 1))
    if [[ $rc -eq 4 ]]; then
      verdict="SURVIVED"; survivors+=("$id: no test matches '${regexes[$i]}'")
    elif [[ $rc -ne 0 ]]; then
      verdict="KILLED"; killed=$((killed + 1))
    else
      verdict="SURVIVED"
      survivors+=("$id: ${files[$i]}: '${patterns[$i]}' -> '${replacements[$i]}'")
    fi
  fi
  # Restore with a new mtime: the next build of any target recompiles it.
  restore
  rm -f "$scratch/in-progress"
  detail=""
  # The first failing tests, from ctest's summary (names end at a space,
  # before any "# GetParam() = ..." of a parameterized test).
  [[ "$verdict" == "KILLED" ]] && detail=" by $(sed -n '/The following tests FAILED/,$p' "$log.test" |
    grep -oE '^[[:space:]]*[0-9]+ - [^ ]+' | sed 's/^[[:space:]]*[0-9]* - //' | head -3 | paste -sd, -)"
  printf '%-9s %s (%ss)%s\n' "$verdict" "$id" "$(( $(date +%s) - start ))" "$detail"
done

echo
for p in "${problems[@]+"${problems[@]}"}"; do echo "not counted: $p"; done
echo "killed $killed of $counted"
for s in "${survivors[@]+"${survivors[@]}"}"; do echo "survivor: $s"; done
