#!/usr/bin/env bash
# The test command: everything the tests need, set up by this script, then the
# whole workspace's tests. Run from anywhere: bash scripts/test.sh
#
# scripts/test-tools.sh installs the servers and clients the tests run against
# (s3s-fs, moto_server, boto3, cargo-lambda, cfn-lint) under target/tools and
# exports their paths; the tests start each server themselves on 127.0.0.1.
# Under CI=true a test whose server is missing fails; it never skips.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== scripts/test-tools.sh (test servers and tools under target/tools)"
eval "$(bash scripts/test-tools.sh)"

echo "== cargo test --workspace --locked"
cargo test --workspace --locked

echo "== scripts/check-deploy.sh (cfn-lint, FilterCriteria = deploy/filters, systemd unit)"
bash scripts/check-deploy.sh
