#!/usr/bin/env bash
# Render a validation report (index.html) to a PNG with headless Chromium, to look at it as a
# reader would: are the figures visible, are the tables readable?
#
#   scripts/render_report.sh [REPORT_DIR_OR_HTML] [OUT.png] [HEIGHT_PX]
#
# Defaults: validation/reports/index.html, <report dir>/screenshot.png, 7000 px tall.
# Needs Debian's chromium (apt-get install chromium). Runs offline: networking is disabled.
set -euo pipefail

target=${1:-validation/reports}
[ -d "$target" ] && target="$target/index.html"
[ -f "$target" ] || { echo "error: no report at $target (run 'difflab validate' first)" >&2; exit 2; }
html=$(realpath "$target")
out=${2:-$(dirname "$html")/screenshot.png}
height=${3:-7000}

browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "error: chromium not found (apt-get install chromium)" >&2; exit 2; }

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
  --user-data-dir="$profile" --window-size=1280,"$height" \
  --screenshot="$(realpath -m "$out")" "file://$html" 2>/dev/null
echo "wrote $out"
