#!/usr/bin/env bash
# Builds a real OpenTelemetry Collector with its builder, once per machine, and prints the binary's path.
#
# The binary lives in a per-user cache outside the repository because building it takes minutes on a
# small machine and both the interop tests and the benchmark reuse it:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tracehop/otelcol-<version>-<recipe>/
#     bin/builder          the Collector builder (go install, GOBIN)
#     build/manifest.yaml  the builder manifest this script writes
#     build/src/           the generated Go sources the builder compiles
#     otelcol              the finished binary (only present after a complete build)
#     build.log            builder output of the last build
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tracehop/otelcol-<version>-<recipe>.lock
# <recipe> counts changes to the component list below, so a machine that built an older list builds again.
#
# Concurrency: a flock on the .lock file serialises builders, so two test workers or a test and the
# benchmark starting together build once; the loser waits and then finds the binary. The binary is moved
# into place only after a successful build, so its presence means "complete".
#
# Versions: the builder and core components follow the collector's 0.x line, the confmap providers the
# 1.x line released with it, contrib the same 0.x number. 0.155.0 is the newest release whose whole
# module graph (kafka exporter/receiver included) the Go proxy serves; newer lines miss some of contrib's
# internal kafka/translator modules (403 "not available"). See docs/decisions/0200-collector-version.md. Override with TRACEHOP_OTELCOL_VERSION and
# TRACEHOP_OTELCOL_PROVIDER_VERSION (both without the leading "v").
set -euo pipefail

version="${TRACEHOP_OTELCOL_VERSION:-0.155.0}"
provider_version="${TRACEHOP_OTELCOL_PROVIDER_VERSION:-1.61.0}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/tracehop"
recipe=2 # 2: the file_storage extension (the bench's persistent-queue row)
dir="$cache_root/otelcol-$version-$recipe"
binary="$dir/otelcol"

if [[ -x "$binary" ]]; then
  echo "$binary"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "collector.sh: 'go' is not on PATH; install Go (https://go.dev/dl/) to build the Collector" >&2
  exit 3
fi

mkdir -p "$dir"
exec 9>"$cache_root/otelcol-$version-$recipe.lock"
if command -v flock >/dev/null 2>&1 && ! flock -n 9; then
  echo "collector.sh: another build holds $cache_root/otelcol-$version-$recipe.lock; waiting for it..." >&2
  flock 9
fi
# Another process may have finished the build while we waited for the lock.
if [[ -x "$binary" ]]; then
  echo "$binary"
  exit 0
fi

started=$(date +%s)
echo "collector.sh: building otelcol $version into $dir (takes minutes the first time)" >&2

export GOBIN="$dir/bin"
# Modules come from the Go proxy; keep a caller's own GOPROXY (a corporate mirror) if set.
export GOPROXY="${GOPROXY:-https://proxy.golang.org,direct}"
# Compiling takes both cores for minutes while the rest of the test suite runs beside it: at a lower
# priority the build only uses what the tests leave idle, so timing-sensitive tests are not starved.
if [[ ! -x "$GOBIN/builder" ]]; then
  nice -n 10 go install "go.opentelemetry.io/collector/cmd/builder@v$version"
fi

rm -rf "$dir/build"
mkdir -p "$dir/build"
core="go.opentelemetry.io/collector"
contrib="github.com/open-telemetry/opentelemetry-collector-contrib"
cat >"$dir/build/manifest.yaml" <<EOF
dist:
  name: otelcol
  module: tracehop.invalid/otelcol
  description: OpenTelemetry Collector assembled for tracehop interop tests and benchmarks
  version: $version-tracehop
  output_path: $dir/build/src

receivers:
  - gomod: $core/receiver/otlpreceiver v$version
  - gomod: $contrib/receiver/kafkareceiver v$version
processors:
  - gomod: $core/processor/batchprocessor v$version
exporters:
  - gomod: $core/exporter/debugexporter v$version
  - gomod: $core/exporter/otlphttpexporter v$version
  - gomod: $contrib/exporter/fileexporter v$version
  - gomod: $contrib/exporter/kafkaexporter v$version
extensions:
  - gomod: $contrib/extension/storage/filestorage v$version
providers:
  - gomod: $core/confmap/provider/envprovider v$provider_version
  - gomod: $core/confmap/provider/fileprovider v$provider_version
EOF

fail() {
  echo "collector.sh: $1 failed; last lines of $dir/build.log:" >&2
  tail -n 40 "$dir/build.log" >&2
  exit 1
}
# The builder generates the sources and go.mod; resolving and compiling are done here because its own
# `go mod tidy` is strict about the tests of dependencies too, and the proxy lacks some test-only
# modules (fileexporter's tests import a contrib extension whose v0.155.0 is not served). `tidy -e`
# records everything that can be resolved; the binary itself never needs the missing module.
nice -n 10 "$GOBIN/builder" --config="$dir/build/manifest.yaml" --skip-get-modules --skip-compilation \
  >"$dir/build.log" 2>&1 || fail "builder (generate)"
# With --skip-get-modules the builder writes no go.mod: state the components' versions here (the same
# list as the manifest) and let tidy add the rest.
{
  echo "module tracehop.invalid/otelcol"
  echo "go 1.25"
  echo "require ("
  sed -n 's/^  - gomod: \(.*\) \(v.*\)$/  \1 \2/p' "$dir/build/manifest.yaml"
  echo "  $core/otelcol v$version"
  echo ")"
} >"$dir/build/src/go.mod"
(
  cd "$dir/build/src"
  nice -n 10 go mod tidy -e -compat=1.25 && nice -n 10 go build -trimpath -ldflags="-s -w" -o otelcol .
) >>"$dir/build.log" 2>&1 || fail "go build"

mv "$dir/build/src/otelcol" "$binary.tmp"
mv "$binary.tmp" "$binary"
echo "collector.sh: built $binary in $(( $(date +%s) - started ))s" >&2
echo "$binary"
