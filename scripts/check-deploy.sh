#!/usr/bin/env bash
# Checks deploy/: cfn-lint on every CloudFormation/SAM template, the templates'
# FilterCriteria equal to deploy/filters/*.json and their TTL alarms equal to
# deploy/alarms/ttl-deletion-anomaly.json (after JSON normalisation), and
# `systemd-analyze verify` on the unit. cfn-lint is installed by
# scripts/test-tools.sh; a failed install is an error, never a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

# cfn-lint comes from the test tools' venv (scripts/test-tools.sh installs it).
eval "$(bash scripts/test-tools.sh)"
VENV="$TTLSTREAM_TOOLS_DIR/venv"

templates=(deploy/sam/template.yaml deploy/cloudformation/*.yaml)
echo "== cfn-lint ${templates[*]}"
"$VENV/bin/cfn-lint" "${templates[@]}"

echo "== FilterCriteria and alarms in templates equal deploy/filters and deploy/alarms"
"$VENV/bin/python" - "${templates[@]}" <<'PY'
import glob, json, sys
from cfnlint.decode import decode

def norm_filters(criteria):
    """FilterCriteria -> sorted list of canonical pattern JSON strings."""
    return sorted(json.dumps(json.loads(f["Pattern"]), sort_keys=True, separators=(",", ":"))
                  for f in criteria["Filters"])

# Filters of the Tablestore and Spanner models select records only the
# sidecar's engine source reads (`[source.engine] model = ...`): no Lambda
# event source carries them, so no template uses them.
SIDECAR_ONLY = {"deploy/filters/spanner-row-deletion-policy.json",
                "deploy/filters/tablestore-ttl-deletes.json"}

files = {}
for path in sorted(set(glob.glob("deploy/filters/*.json")) - SIDECAR_ONLY):
    with open(path) as f:
        doc = json.load(f)
    if "Filters" not in doc:
        doc = {"Filters": [{"Pattern": json.dumps(doc)}]}
    files[path] = norm_filters(doc)

with open("deploy/alarms/ttl-deletion-anomaly.json") as f:
    alarm_file = json.load(f)
ALARM_FIELDS = ["MetricName", "Statistic", "Period", "EvaluationPeriods", "DatapointsToAlarm",
                "Threshold", "ComparisonOperator", "TreatMissingData", "Unit"]

errors, used, checked = [], set(), 0
for template in sys.argv[1:]:
    tpl, matches = decode(template)
    if tpl is None:
        errors.append(f"{template}: cannot parse: {matches}")
        continue
    for name, res in tpl.get("Resources", {}).items():
        props = res.get("Properties", {}) or {}
        sources = []
        if res.get("Type") == "AWS::Serverless::Function":
            for ev_name, ev in (props.get("Events") or {}).items():
                if "FilterCriteria" in (ev.get("Properties") or {}):
                    sources.append((f"{name}.Events.{ev_name}", ev["Properties"]["FilterCriteria"]))
        if res.get("Type") == "AWS::Lambda::EventSourceMapping" and "FilterCriteria" in props:
            sources.append((name, props["FilterCriteria"]))
        for where, criteria in sources:
            checked += 1
            got = norm_filters(criteria)
            same = [p for p, want in files.items() if want == got]
            if not same:
                errors.append(f"{template}: {where}: FilterCriteria {got} equals no deploy/filters/*.json")
            used.update(same)
        if res.get("Type") == "AWS::CloudWatch::Alarm" and props.get("MetricName") == "TimeToLiveDeletedItemCount":
            checked += 1
            for field in ALARM_FIELDS:
                want, got = alarm_file.get(field), props.get(field)
                if isinstance(want, (int, float)) and not isinstance(want, bool):
                    got = float(got) if got is not None else None
                    want = float(want)
                if want != got:
                    errors.append(f"{template}: {name}: {field} is {got!r}, "
                                  f"deploy/alarms/ttl-deletion-anomaly.json has {want!r}")
# The packaged Lambda config (deploy/sam/ttlstream.toml, copied by
# deploy/sam/Makefile) reads ${NAME} from the function's environment: every
# name it needs without a default is set by the template, every TTLSTREAM_*
# variable the template sets is read, and the Makefile has the function's target.
import re
packaged = open("deploy/sam/ttlstream.toml").read()
refs = re.findall(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}", packaged)
needed = {name for name, default in refs if not default}
read = {name for name, _ in refs} | {"TTLSTREAM_CONFIG"}
makefile = open("deploy/sam/Makefile").read()
sam, _ = decode("deploy/sam/template.yaml")
for name, res in (sam or {}).get("Resources", {}).items():
    if res.get("Type") != "AWS::Serverless::Function":
        continue
    checked += 1
    props = res.get("Properties", {}) or {}
    env = set(((props.get("Environment") or {}).get("Variables") or {}).keys())
    for missing in sorted(needed - env):
        errors.append(f"deploy/sam/template.yaml: {name}: deploy/sam/ttlstream.toml needs {missing}, not set in Environment")
    for unread in sorted(v for v in env - read if v.startswith("TTLSTREAM_")):
        errors.append(f"deploy/sam/template.yaml: {name}: {unread} is set but deploy/sam/ttlstream.toml does not read it")
    if (res.get("Metadata") or {}).get("BuildMethod") == "makefile" and f"build-{name}:" not in makefile:
        errors.append(f"deploy/sam/Makefile has no build-{name} target")
unused = set(files) - used
if unused:
    errors.append(f"filter files used by no template: {sorted(unused)}")
if checked == 0:
    errors.append("no FilterCriteria or alarm found in the templates")
for e in errors:
    print("check-deploy:", e, file=sys.stderr)
if errors:
    sys.exit(1)
print(f"ok: {checked} FilterCriteria/alarm definitions match")
PY

echo "== systemd-analyze verify deploy/systemd/ttlstream.service"
if command -v systemd-analyze >/dev/null; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # verify requires ExecStart's binary to exist: point it at an executable that
  # does, keeping every other line as shipped.
  sed "s|^ExecStart=/usr/local/bin/ttlstream |ExecStart=$(command -v true) |" \
    deploy/systemd/ttlstream.service > "$tmp/ttlstream.service"
  out=$(systemd-analyze verify --man=no "$tmp/ttlstream.service" 2>&1) || { echo "$out" >&2; exit 1; }
  if [ -n "$out" ]; then
    echo "$out" >&2
    echo "check-deploy: systemd-analyze reported problems" >&2
    exit 1
  fi
  echo "ok"
else
  echo "check-deploy: NOTE systemd-analyze not found: unit not verified"
fi
