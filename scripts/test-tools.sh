#!/usr/bin/env bash
# Installs the servers and tools the tests run against, then prints `export`
# lines for them. Sourced by scripts/test.sh; run it alone to get a shell set up
# for `cargo test`:   eval "$(bash scripts/test-tools.sh)"
#
# Everything goes under $TTLSTREAM_TOOLS_DIR (default target/tools), so a fresh
# clone needs nothing installed by hand:
# - a Python venv with cfn-lint (deploy checks), boto3 (the boto3 client test),
#   requests (the Tablestore JSON API test, tests/tablestore/ttl_life.py),
#   moto[server] (`moto_server`: DynamoDB Streams peer, benchmark baseline) and
#   cargo-lambda (`cargo lambda watch` for the Lambda entry point);
# - s3s-fs 0.14.1 (an S3-compatible server on the local file system).
#
# Under CI=true a failed install is an error; tests then fail rather than skip.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS="${TTLSTREAM_TOOLS_DIR:-$PWD/target/tools}"
mkdir -p "$TOOLS"
TOOLS="$(cd "$TOOLS" && pwd)"
VENV="$TOOLS/venv"
log() { echo "test-tools: $*" >&2; }

if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  python3 -m venv "$VENV" >&2
fi
PY_PACKAGES=(cfn-lint boto3 requests 'moto[server]' cargo-lambda)
if [ ! -x "$VENV/bin/moto_server" ] || [ ! -x "$VENV/bin/cargo-lambda" ] \
   || [ ! -x "$VENV/bin/cfn-lint" ] || ! "$VENV/bin/python" -c 'import boto3, requests' 2>/dev/null; then
  log "pip install ${PY_PACKAGES[*]}"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PY_PACKAGES[@]}" >&2
fi

if [ ! -x "$TOOLS/bin/s3s-fs" ]; then
  log "cargo install s3s-fs 0.14.1 (a few minutes, once)"
  cargo install --quiet --root "$TOOLS" s3s-fs --version 0.14.1 --features binary --locked >&2
fi

cat <<EXPORTS
export TTLSTREAM_TOOLS_DIR='$TOOLS'
export TTLSTREAM_PYTHON='$VENV/bin/python'
export TTLSTREAM_MOTO_SERVER='$VENV/bin/moto_server'
export TTLSTREAM_S3S_FS='$TOOLS/bin/s3s-fs'
export TTLSTREAM_CARGO_LAMBDA='$VENV/bin/cargo-lambda'
export PATH='$VENV/bin:$TOOLS/bin':"\$PATH"
EXPORTS
