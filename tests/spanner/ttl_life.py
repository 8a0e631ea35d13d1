"""The TTL life of a Spanner table through `ttlstream serve`'s Spanner REST
subset, with `requests`: a database with a row deletion policy and an
interleaved child, rows committed (one already past the policy), the sweeper
run on a manual clock, the rows gone, the data change records tagged
`RowDeletionPolicy`, a backup restored without the policy, and a table of bad
requests each answered with Google's error shape and status.

Usage: python ttl_life.py ENDPOINT_URL

The server runs with `--clock manual` and `--credentials AKID:SECRET`: every
request is signed with SigV4 (botocore's signer), as `serve` requires of
Spanner requests when it has credentials. Prints one JSON line summarising
what was seen; any unexpected answer raises (exit status 1).
"""

import json
import sys
from datetime import datetime, timedelta, timezone

import botocore.auth
import botocore.awsrequest
import botocore.credentials
import requests

ENDPOINT = sys.argv[1]
CREDENTIALS = botocore.credentials.Credentials("AKID", "SECRET")
INSTANCE = "/v1/projects/demo/instances/local"
DB = INSTANCE + "/databases/music-db"
DAY = timedelta(days=1)


def call(method, path, body=None, sign=True):
    """Sends a signed JSON request; returns (status, parsed body)."""
    data = json.dumps(body if body is not None else {}).encode()
    request = botocore.awsrequest.AWSRequest(
        method=method, url=ENDPOINT + path, data=data,
        headers={"Content-Type": "application/json"},
    )
    if sign:
        botocore.auth.SigV4Auth(CREDENTIALS, "spanner", "us-east-1").add_auth(request)
    prepared = request.prepare()
    response = requests.request(method, prepared.url, data=data, headers=dict(prepared.headers))
    return response.status_code, response.json()


def ok(method, path, body=None):
    status, answer = call(method, path, body)
    assert status == 200, (method, path, status, answer)
    return answer


def ts(when):
    return when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def now():
    millis = ok("GET", "/_ttlstream/clock")["EpochMillis"]
    return datetime.fromtimestamp(millis / 1000, tz=timezone.utc)


def rows(table, database=DB):
    answer = ok("POST", database + "/sessions/1:read",
                {"table": table, "columns": ["SingerId"], "keySet": {"all": True}})
    return [r[0] for r in answer["rows"]]


def commit(mutations):
    return call("POST", DB + "/sessions/1:commit",
                {"singleUseTransaction": {"readWrite": {}}, "mutations": mutations})


seen = {}

# Unsigned: refused.
status, answer = call("GET", DB + "/ddl", sign=False)
seen["unsigned"] = [status, answer["error"]["status"]]

operation = ok("POST", INSTANCE + "/databases", {
    "createStatement": "CREATE DATABASE `music-db`",
    "extraStatements": [
        "CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(MAX), "
        "CreatedAt TIMESTAMP) PRIMARY KEY (SingerId), "
        "ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 7 DAY))",
        "CREATE TABLE Albums (SingerId INT64 NOT NULL, AlbumId INT64 NOT NULL, "
        "Title STRING(MAX)) PRIMARY KEY (SingerId, AlbumId), "
        "INTERLEAVE IN PARENT Singers ON DELETE CASCADE",
        "CREATE INDEX SingersByName ON Singers (Name)",
    ],
})
assert operation["done"] is True, operation
seen["ddl"] = ok("GET", DB + "/ddl")["statements"]
session = ok("POST", DB + "/sessions", {})
assert session["name"].startswith(DB[len("/v1/"):] + "/sessions/"), session

start = now()
status, answer = commit([
    {"insert": {"table": "Singers", "columns": ["SingerId", "Name", "CreatedAt"], "values": [
        ["1", "Old", ts(start - 10 * DAY)],   # already past the policy: accepted
        ["2", "Fresh", ts(start)],
        ["3", "Forever", None],               # NULL: never deleted
    ]}},
    {"insert": {"table": "Albums", "columns": ["SingerId", "AlbumId", "Title"],
                "values": [["1", "10", "A"], ["2", "20", "B"]]}},
])
assert status == 200, answer
seen["readable_before_sweep"] = rows("Singers")

# Back up now (with singer 1), before the sweeper deletes it.
ok("POST", INSTANCE + "/backups?backupId=before-sweep",
   {"database": DB[len("/v1/"):]})

seen["swept_first"] = ok("POST", "/_ttlstream/sweep")["Deleted"]
seen["after_first_sweep"] = rows("Singers")
seen["albums_after_first_sweep"] = rows("Albums")

records = ok("GET", DB + "/dataChangeRecords?table=Singers")["dataChangeRecords"]
deletes = [r["record"] for r in records if r["record"]["mod_type"] == "DELETE"]
seen["delete_tags"] = [[d["is_system_transaction"], d["transaction_tag"], d["mods"][0]["keys"]]
                       for d in deletes]

ok("POST", "/_ttlstream/clock", {"AdvanceMillis": 8 * 86_400_000})
ok("POST", "/_ttlstream/sweep")
seen["after_eight_days"] = rows("Singers")

ok("POST", INSTANCE + "/databases:restore",
   {"databaseId": "restored-db", "backup": INSTANCE[len("/v1/"):] + "/backups/before-sweep"})
restored_db = INSTANCE + "/databases/restored-db"
restored_ddl = ok("GET", restored_db + "/ddl")["statements"]
seen["restored_has_policy"] = any("ROW DELETION POLICY" in s for s in restored_ddl)
ok("POST", "/_ttlstream/sweep")
seen["restored_rows_after_sweep"] = rows("Singers", restored_db)

# Bad requests: each with Google's error shape, HTTP code and status.
BAD = [
    ("PATCH", DB + "/ddl", {"statements": ["CREATE TABLE T (A JSON) PRIMARY KEY (A)"]},
     400, "INVALID_ARGUMENT"),
    ("PATCH", DB + "/ddl", {"statements": [
        "ALTER TABLE Singers ADD ROW DELETION POLICY (OLDER_THAN(CreatedAt, INTERVAL 1 DAY))"]},
     400, "FAILED_PRECONDITION"),
    ("PATCH", DB + "/ddl", {"statements": [
        "ALTER TABLE Singers REPLACE ROW DELETION POLICY (OLDER_THAN(Name, INTERVAL 1 DAY))"]},
     400, "FAILED_PRECONDITION"),
    ("PATCH", DB + "/ddl", {"statements": ["ALTER TABLE Missing DROP ROW DELETION POLICY"]},
     404, "NOT_FOUND"),
    ("POST", INSTANCE + "/databases", {"createStatement": "CREATE DATABASE `music-db`"},
     409, "ALREADY_EXISTS"),
    ("POST", DB + "/sessions/1:commit", {"mutations": [{"insert": {
        "table": "Singers", "columns": ["SingerId"], "values": [["3"]]}}]},
     409, "ALREADY_EXISTS"),
    ("POST", DB + "/sessions/1:commit", {"mutations": [{"update": {
        "table": "Singers", "columns": ["SingerId", "Name"], "values": [["99", "x"]]}}]},
     404, "NOT_FOUND"),
    ("POST", DB + "/sessions/1:commit", {"mutations": [{"insert": {
        "table": "Singers", "columns": ["SingerId"], "values": [["not a number"]]}}]},
     400, "INVALID_ARGUMENT"),
    ("POST", DB + "/sessions/1:read", {"table": "Nope", "columns": ["A"], "keySet": {"all": True}},
     404, "NOT_FOUND"),
    ("POST", INSTANCE + "/databases:restore",
     {"databaseId": "x-db", "backup": INSTANCE[len("/v1/"):] + "/backups/missing"},
     404, "NOT_FOUND"),
]
seen["bad_requests"] = []
for method, path, body, code, status_name in BAD:
    status, answer = call(method, path, body)
    error = answer.get("error", {})
    assert (status, error.get("code"), error.get("status")) == (code, code, status_name), \
        (method, path, body, status, answer)
    assert error.get("message"), answer
    seen["bad_requests"].append([status, error["status"]])

print(json.dumps(seen))
