#!/usr/bin/env bash
# Builds the SAM package's arm64 Lambda with deploy/sam/Makefile's own command
# (`cargo lambda build --release --arm64`, zig as the cross linker) and runs
# the `bootstrap` under qemu-aarch64 against a minimal Lambda Runtime API that
# hands it processor/tests/fixtures/lambda-dynamodb-event.json (five records,
# two of them TTL deletions). Passes when the answer is
# {"batchItemFailures":[]} and the file sink holds exactly the two TTL
# deletions. On aarch64 the filters take their portable paths (no AVX2).
#
# Not part of scripts/test.sh: a cold release build for aarch64 takes about
# 15 minutes on two cores. Needs qemu-user and the arm64 C library
# (Debian: `apt-get install qemu-user libc6-arm64-cross`); the rustup target
# and the test tools (cargo-lambda, zig) are installed here.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/test-tools.sh)"
command -v qemu-aarch64 >/dev/null || { echo "qemu-aarch64 missing: apt-get install qemu-user libc6-arm64-cross" >&2; exit 1; }
rustup target add aarch64-unknown-linux-gnu >/dev/null

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
echo "== cargo lambda build --release --arm64 (into $work/package)"
"$TTLSTREAM_CARGO_LAMBDA" lambda build --release --arm64 -p ttlstream-lambda --bin ttlstream-lambda \
    --lambda-dir "$work/package" --flatten ttlstream-lambda
cp deploy/filters/ttl-system-deletes.json "$work/"
cat > "$work/ttlstream.toml" <<TOML
[[routes]]
name = "ttl-archive"
filter = "$work/ttl-system-deletes.json"
sinks = ["archive"]

[sinks.archive.file]
path = "$work/archive"
TOML

echo "== bootstrap under qemu-aarch64, one invocation"
"$TTLSTREAM_PYTHON" - "$work" processor/tests/fixtures/lambda-dynamodb-event.json <<'PY'
import http.server, json, os, subprocess, sys, threading, glob
work, event = sys.argv[1], open(sys.argv[2], 'rb').read()
answers = []

class RuntimeApi(http.server.BaseHTTPRequestHandler):
    """GET .../invocation/next hands out the event once; POST records the answer."""
    served = False
    def log_message(self, *args): pass
    def do_GET(self):
        if RuntimeApi.served:
            threading.Event().wait(60)  # no second event: the check ends first
            return
        RuntimeApi.served = True
        self.send_response(200)
        for k, v in [('Lambda-Runtime-Aws-Request-Id', 'req-1'),
                     ('Lambda-Runtime-Deadline-Ms', '9999999999999'),
                     ('Lambda-Runtime-Invoked-Function-Arn',
                      'arn:aws:lambda:us-east-1:123456789012:function:ttlstream')]:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(event)
    def do_POST(self):
        answers.append((self.path, self.rfile.read(int(self.headers.get('Content-Length', 0)))))
        self.send_response(202)
        self.end_headers()

server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), RuntimeApi)
threading.Thread(target=server.serve_forever, daemon=True).start()
env = dict(os.environ, AWS_LAMBDA_RUNTIME_API='127.0.0.1:%d' % server.server_port,
           AWS_LAMBDA_FUNCTION_NAME='ttlstream', AWS_LAMBDA_FUNCTION_VERSION='1',
           AWS_LAMBDA_FUNCTION_MEMORY_SIZE='128', AWS_REGION='us-east-1',
           TTLSTREAM_CONFIG=work + '/ttlstream.toml')
fn = subprocess.Popen(['qemu-aarch64', '-L', '/usr/aarch64-linux-gnu', work + '/package/bootstrap'],
                      env=env, stdout=subprocess.DEVNULL)
for _ in range(600):
    if answers:
        break
    threading.Event().wait(0.1)
fn.kill()
assert answers, 'no answer from the function within 60 s'
path, body = answers[0]
assert path == '/2018-06-01/runtime/invocation/req-1/response', (path, body)
assert json.loads(body) == {'batchItemFailures': []}, body
lines = [json.loads(l) for f in glob.glob(work + '/archive/**/*.ndjson', recursive=True) for l in open(f)]
sequences = sorted(r['dynamodb']['SequenceNumber'] for r in lines)
assert sequences == ['111000000000000000000002', '111000000000000000000005'], sequences
assert all(r['userIdentity']['type'] == 'Service' for r in lines)
print('arm64 bootstrap: answered %s, archived the 2 TTL deletions %s' % (body.decode(), sequences))
PY
