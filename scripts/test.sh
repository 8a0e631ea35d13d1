#!/usr/bin/env bash
# The test command: everything the tests need, set up by this script, then the
# whole workspace's tests. Run from anywhere: bash scripts/test.sh
#
# Today's tests need only Rust: the engine, the filters, the processor and the
# end-to-end tests (demo, sidecar killed and restarted) run against real files and
# real processes on this machine. Tests that need servers (S3, DynamoDB Streams)
# start them from here, on 127.0.0.1, when they arrive.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test --workspace --locked"
cargo test --workspace --locked

echo "== scripts/check-deploy.sh (cfn-lint, FilterCriteria = deploy/filters, systemd unit)"
bash scripts/check-deploy.sh
