#!/usr/bin/env bash
# Opens a `tessera partition --html FILE` page in a real headless browser and
# checks that what the browser built (its DOM, not the file's text) holds
# the graph (<svg id="plan-graph"> with an op rect) and the partition table
# with at least one row. The browser is not a CI package (too heavy):
#   apt-get install chromium
#   build/bin/tessera demo --model attention --accelerators cpu --save-model /tmp/attention.tsr
#   build/bin/tessera partition /tmp/attention.tsr --accelerators npu,cpu --policy greedy --html /tmp/plan.html
#   scripts/check_partition_html.sh /tmp/plan.html
# Exit: 0 ok, 1 the DOM lacks something, 2 usage, 77 no browser (skip).
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  echo "usage: scripts/check_partition_html.sh HTML (an existing file)" >&2
  exit 2
fi
html=$(realpath -- "$1")

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  echo "check_partition_html: skipped, no headless browser (apt-get install chromium)" >&2
  exit 77
fi

profile=$(mktemp -d)
trap 'rm -rf -- "$profile"' EXIT
# --no-sandbox: the sandbox cannot start as root (containers, CI).
dom=$(timeout 120 "$browser" --headless --disable-gpu --no-sandbox --user-data-dir="$profile" \
        --dump-dom "file://$html" 2>/dev/null)

fail=0
check() {  # check WHAT PATTERN: the DOM (as one line) must match the extended regex
  if tr -d '\n' <<<"$dom" | grep -Eq -- "$2"; then echo "ok: $1"; else echo "MISSING: $1" >&2; fail=1; fi
}
check "the graph svg" '<svg id="plan-graph"'
check "an op drawn in the svg" '<rect [^>]*fill="#[0-9a-f]{6}"'
check "the partition table" '<table id="partitions">'
check "a partition row" '<table id="partitions">.*<tr><td>[0-9]+</td>'
check "the latency summary" '<p id="latency">modelled latency'
exit $fail
