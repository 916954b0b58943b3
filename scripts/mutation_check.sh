#!/usr/bin/env bash
# Mutation check: plants the small bugs of scripts/mutations.txt one at a
# time in a scratch copy of the tree, rebuilds only the targets each one
# names, runs the tests it can reach, and restores the file. A mutant is
# killed when a test fails (or times out); it survives when every test
# passes. Ends with `killed K of N` and the survivors. A tool, not a CI
# step (docs/testing.md).
#
#   scripts/mutation_check.sh [--list FILE] [--only ID[,ID...]] [--scratch DIR]
#                             [--jobs N] [--timeout SECONDS] [--no-baseline] [--check]
#                             [--state FILE] [--fresh] [--e2e REGEX]
#
# --check only verifies that every PATTERN occurs exactly once (no build).
#
# The tests a mutant can reach are picked for it: every ctest test whose
# executable was relinked by the mutant's rebuild (mtimes of build/'s
# executables and shared libraries before and after), every test whose
# command line names a relinked file, and, when a shared library (a plugin
# or the runtime's) was relinked, the end-to-end tests (--e2e, default
# below), plus the line's TEST_REGEX ("-" for none) for tests that reach the
# mutant some other way. The end-to-end tests run the CLI: a line whose
# mutant is in a shared library lists `tessera` among its TARGETS.
#
# Resumable: each verdict is appended to a state file (default
# SCRATCH/state), keyed by the list line and the unmutated file's bytes; a
# later run skips the mutants recorded there and still counts them in its
# `killed K of N`. --fresh forgets the recorded verdicts first.
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
# targets to rebuild (space separated): the tests run are those of the
# executables this relinks (above); TEST_REGEX (ctest -R syntax, "-" for
# none) adds tests that reach the mutant otherwise.
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
state=""
fresh=0
e2e='^(cli_demo|sample_matmul_c_npu_cpu|sample_matmul_cpp_npu_cpu_cost|onnx_import_cli|onnx_conformance_fast)$'
while [[ $# -gt 0 ]]; do
  case "$1" in
    --list) list="$2"; shift 2 ;;
    --only) only=",$2,"; shift 2 ;;
    --scratch) scratch="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --no-baseline) baseline=0; shift ;;
    --check) check=1; shift ;;
    --state) state="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    --e2e) e2e="$2"; shift 2 ;;
    -h|--help) sed -n 2,42p "$0"; exit 0 ;;
    *) echo "mutation_check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -f "$list" ]] || { echo "mutation_check: no list '$list'" >&2; exit 2; }
command -v python3 >/dev/null || { echo "mutation_check: needs python3" >&2; exit 2; }

mkdir -p "$scratch"
[[ -n "$state" ]] || state="$scratch/state"
[[ $fresh -eq 1 ]] && rm -f "$state"
touch "$state"

# Parse the list into parallel arrays (one python run: a run per line
# costs seconds on a loaded machine).
ids=() files=() patterns=() replacements=() targets=() regexes=() lines=()
parsed="$(python3 - "$list" <<'PYEOF'
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if not line.strip() or line.lstrip().startswith("#"):
        continue
    parts = [p.strip() for p in line.split("@@")]
    if len(parts) != 6:
        print(f"mutation_check: bad line (want 6 fields split by @@): {line}", file=sys.stderr)
        sys.exit(2)
    print("\x1f".join(parts + [line]))
PYEOF
)" || exit 2
while IFS=$'\x1f' read -r id file pattern replacement target regex line; do
  [[ -n "$id" ]] || continue
  if [[ -n "$only" && "$only" != *",$id,"* ]]; then continue; fi
  ids+=("$id"); files+=("$file"); patterns+=("$pattern"); replacements+=("$replacement")
  targets+=("$target"); regexes+=("$regex"); lines+=("$line")
done <<<"$parsed"
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

# Every executable and shared library under the build dir with its mtime.
snapshot() {  # $1 = output file
  python3 - "$build" "$1" <<'PYEOF'
import os, sys
build, out = sys.argv[1], sys.argv[2]
with open(out, "w") as f:
    for root, dirs, files in os.walk(build):
        dirs[:] = [d for d in dirs if d != "CMakeFiles" and not d.startswith("Testing")]
        for name in files:
            p = os.path.join(root, name)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            if ".so" in name or (os.access(p, os.X_OK) and not name.endswith((".sh", ".py", ".cmake"))):
                f.write(f"{os.stat(p).st_mtime_ns} {os.path.realpath(p)}\n")
PYEOF
}

# The ctest numbers of the tests a mutant can reach (the header explains
# which); prints them comma separated, and the relinked files to $4.
reached_tests() {  # $1 = snapshot before, $2 = after, $3 = extra regex or "-", $4 = relinked list
  ctest --test-dir "$build" --show-only=json-v1 >"$4.tests" 2>/dev/null
  python3 - "$1" "$2" "$3" "$e2e" "$4" <<'PYEOF'
import json, os, re, sys
before_f, after_f, extra, e2e, relinked_f = sys.argv[1:6]
def read(f):
    out = {}
    for line in open(f):
        t, p = line.rstrip("\n").split(" ", 1)
        out[p] = int(t)
    return out
before, after = read(before_f), read(after_f)
relinked = {p for p, t in after.items() if before.get(p) != t}
with open(relinked_f, "w") as f:
    f.write("".join(p + "\n" for p in sorted(relinked)))
libs = any(".so" in os.path.basename(p) for p in relinked)
tests = json.load(open(relinked_f + ".tests"))["tests"]
picked = []
for i, t in enumerate(tests, 1):
    cmd = [os.path.realpath(c) if os.path.isabs(c) else c for c in (t.get("command") or [])]
    if (any(c in relinked for c in cmd) or (libs and re.search(e2e, t["name"]))
            or (extra != "-" and re.search(extra, t["name"]))):
        picked.append(str(i))
print(",".join(picked))
PYEOF
}

run_numbered() {  # $1 = log file, $2 = comma-separated ctest numbers
  nice ctest --test-dir "$build" -j"$jobs" --timeout "$timeout" -I "0,0,0,$2" >"$1" 2>&1
}

key_of() {  # $1 = index: the list line and the unmutated file's bytes
  { printf '%s\n' "${lines[$1]}"; cat "$src/${files[$1]}" 2>/dev/null; } | sha256sum | cut -c1-16
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
  all_regex=$(printf '%s\n' "${regexes[@]}" | grep -vx -- '-' | sort -u | paste -sd'|')
  # The tests of the listed targets' executables, the lines' regexes, and
  # the end-to-end tests whose executables are built.
  # shellcheck disable=SC2086
  numbers="$(ctest --test-dir "$build" --show-only=json-v1 2>/dev/null | python3 -c '
import json, os, re, sys
targets, extra, e2e = set(sys.argv[1].split()), sys.argv[2], sys.argv[3]
picked = []
for i, t in enumerate(json.load(sys.stdin)["tests"], 1):
    cmd = t.get("command") or []
    built = bool(cmd) and os.path.exists(cmd[0])
    e2e_built = "tessera" in targets and re.search(e2e, t["name"])
    if (built and (os.path.basename(cmd[0]) in targets or e2e_built)) or (extra and re.search(extra, t["name"])):
        picked.append(str(i))
print(",".join(picked))' "$all_targets" "$all_regex" "$e2e")"
  [[ -n "$numbers" ]] && run_numbered "$logs/baseline-test.log" "$numbers" ||
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
  key="$(key_of "$i")"
  # A verdict recorded for this line and these bytes: counted, not rerun.
  recorded="$(awk -v k="$key" -v id="$id" '$1 == k && $2 == id { line = $0 } END { print line }' "$state")"
  if [[ -n "$recorded" ]]; then
    read -r _ _ verdict detail <<<"$recorded"
    case "$verdict" in
      KILLED) killed=$((killed + 1)); counted=$((counted + 1)) ;;
      SURVIVED) counted=$((counted + 1)); survivors+=("$id: ${detail}") ;;
      *) problems+=("$id: ${detail}") ;;
    esac
    printf '%-9s %s (recorded in %s)\n' "$verdict" "$id" "$state"
    continue
  fi
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
  numbers=""
  snapshot "$log.before"
  why=""
  # shellcheck disable=SC2086
  if ! build_targets "$log.build" ${targets[$i]}; then
    verdict="STILLBORN"  # does not compile: not counted
    why="the mutant does not compile ($log.build)"
    problems+=("$id: $why")
  else
    snapshot "$log.after"
    numbers="$(reached_tests "$log.before" "$log.after" "${regexes[$i]}" "$log.relinked")"
    rc=4
    if [[ -n "$numbers" ]]; then
      run_numbered "$log.test" "$numbers"
      rc=$?
    fi
    counted=$((counted + 1))
    if [[ $rc -eq 4 ]]; then
      verdict="SURVIVED"; why="no test reaches it (relinked: $(wc -l <"$log.relinked") files)"
    elif [[ $rc -ne 0 ]]; then
      verdict="KILLED"; killed=$((killed + 1))
    else
      verdict="SURVIVED"
      why="${files[$i]}: '${patterns[$i]}' -> '${replacements[$i]}'"
    fi
    [[ "$verdict" == "SURVIVED" ]] && survivors+=("$id: $why")
  fi
  # Restore with a new mtime: the next build of any target recompiles it.
  restore
  rm -f "$scratch/in-progress"
  detail=""
  # The first failing tests, from ctest's summary (names end at a space,
  # before any "# GetParam() = ..." of a parameterized test).
  [[ "$verdict" == "KILLED" ]] && detail=" by $(sed -n '/The following tests FAILED/,$p' "$log.test" |
    grep -oE '^[[:space:]]*[0-9]+ - [^ ]+' | sed 's/^[[:space:]]*[0-9]* - //' | head -3 | paste -sd, -)"
  [[ -n "$numbers" ]] 2>/dev/null && detail+=" [$(tr -cd , <<<"$numbers" | wc -c | awk '{print $1 + 1}') tests]"
  printf '%-9s %s (%ss)%s\n' "$verdict" "$id" "$(( $(date +%s) - start ))" "$detail"
  printf '%s %s %s %s\n' "$key" "$id" "$verdict" "${why:-$detail}" >>"$state"
done

echo
for p in "${problems[@]+"${problems[@]}"}"; do echo "not counted: $p"; done
echo "killed $killed of $counted"
for s in "${survivors[@]+"${survivors[@]}"}"; do echo "survivor: $s"; done
