"""The whole TTL life of a Tablestore-model table through `ttlstream serve`'s
Tablestore JSON API, with `requests`: a table with `time_to_live` and
`max_versions`, cells written at versions over the day, read hidden and
brought back by UpdateTable, rows removed by the sweeper only once all their
cells have expired, the change records read with the stream operations;
then a table of bad requests, each answered with Tablestore's error code and
HTTP status.

Usage: python ttl_life.py ENDPOINT_URL

The server runs with `--clock manual` and `--credentials AKID:SECRET`: every
request is signed with botocore's SigV4 signer, as for the DynamoDB API.
Prints one JSON line summarising what was seen; any unexpected answer raises
(exit status 1).
"""

import json
import sys

import botocore.auth
import botocore.awsrequest
import botocore.credentials
import requests

ENDPOINT = sys.argv[1]
CREDENTIALS = botocore.credentials.Credentials("AKID", "SECRET")
HOUR = 3_600_000
DAY = 24 * HOUR
TABLE = "Sessions"


def post(path, body, sign=True):
    """POSTs JSON to a path; returns (status, answer)."""
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if sign:
        request = botocore.awsrequest.AWSRequest(
            method="POST", url=ENDPOINT + path, data=data, headers=headers)
        botocore.auth.SigV4Auth(CREDENTIALS, "ots", "cn-hangzhou").add_auth(request)
        headers = dict(request.prepare().headers)
    response = requests.post(ENDPOINT + path, data=data, headers=headers, timeout=30)
    return response.status_code, response.json()


def ok(operation, body):
    status, answer = post("/" + operation, body)
    assert status == 200, (operation, body, status, answer)
    return answer


def pk(user):
    return [{"name": "user", "value": {"STRING": user}}]


def cell(name, value, timestamp):
    return {"name": name, "value": {"INTEGER": value}, "timestamp": timestamp}


def versions(user):
    """{column: [values, newest first]} of the row as GetRow sees it."""
    row = ok("GetRow", {"table_name": TABLE, "primary_key": pk(user), "max_versions": 10})["row"]
    if row is None:
        return None
    out = {}
    for c in row["attribute_columns"]:
        out.setdefault(c["name"], []).append(c["value"]["INTEGER"])
    return out


def advance(millis):
    post("/_ttlstream/clock", {"AdvanceMillis": millis})


def sweep():
    return post("/_ttlstream/sweep", {})[1]["Deleted"]


def users():
    answer = ok("GetRange", {
        "table_name": TABLE, "max_versions": 1,
        "inclusive_start_primary_key": [{"name": "user", "value": "INF_MIN"}],
        "exclusive_end_primary_key": [{"name": "user", "value": "INF_MAX"}],
    })
    return [r["primary_key"][0]["value"]["STRING"] for r in answer["rows"]]


def read_stream(stream_id):
    """Every record the stream keeps, one per call: shard by shard as
    DescribeStream lists them (parent first), each read until its
    next_shard_iterator is null (a closed shard read to its end) or a call
    returns nothing (the open shard, caught up)."""
    records = []
    for shard in ok("DescribeStream", {"stream_id": stream_id})["shards"]:
        iterator = ok("GetShardIterator", {"stream_id": stream_id,
                                           "shard_id": shard["shard_id"]})["shard_iterator"]
        while iterator is not None:
            page = ok("GetStreamRecord", {"shard_iterator": iterator, "limit": 1})
            if not page["stream_records"] and page["next_shard_iterator"] is not None:
                break
            records += page["stream_records"]
            iterator = page["next_shard_iterator"]
    return records


def summary(records):
    return [[r["action_type"], r["record"]["primary_key"][0]["value"]["STRING"],
             r.get("user_identity")] for r in records]


seen = {}

# Unsigned: refused as the DynamoDB API refuses it.
status, answer = post("/ListTable", {}, sign=False)
seen["unsigned"] = [status, answer["code"]]

ok("CreateTable", {
    "table_meta": {"table_name": TABLE, "primary_key": [{"name": "user", "type": "STRING"}]},
    "reserved_throughput": {"capacity_unit": {"read": 0, "write": 0}},
    "table_options": {"time_to_live": 86400, "max_versions": 2},
    "stream_spec": {"enable_stream": True},
})
seen["options"] = ok("DescribeTable", {"table_name": TABLE})["table_options"]
now = post("/_ttlstream/clock", {"AdvanceMillis": 0})[1]["EpochMillis"]

# alice: `visits` written at three versions over the day, `plan` an hour ago.
# bob: one cell, 20 hours old.
ok("PutRow", {"table_name": TABLE, "row": {"primary_key": pk("alice"), "attribute_columns": [
    cell("visits", 1, now - 20 * HOUR), cell("visits", 2, now - 10 * HOUR),
    cell("visits", 3, now - HOUR), cell("plan", 9, now - HOUR)]}})
ok("PutRow", {"table_name": TABLE, "row": {"primary_key": pk("bob"), "attribute_columns": [
    cell("visits", 5, now - 20 * HOUR)]}})

# The change records so far, through the stream operations: the two PutRows.
stream_id = ok("ListStream", {"table_name": TABLE})["streams"][0]["stream_id"]
records = read_stream(stream_id)
seen["records_after_puts"] = summary(records)

# max_versions 2 hides the oldest version at once; raising it brings it back.
seen["max_versions_2"] = versions("alice")
ok("UpdateTable", {"table_name": TABLE, "table_options": {"max_versions": 3}})
seen["max_versions_3"] = versions("alice")

# Five hours on, the 20-hour-old versions are past the day's TTL: bob is
# gone to readers, alice loses one version.
advance(5 * HOUR)
seen["expired_alice"] = versions("alice")
seen["expired_bob"] = versions("bob")
# Raising time_to_live before the sweeper runs brings both back.
ok("UpdateTable", {"table_name": TABLE, "table_options": {"time_to_live": 2 * 86400}})
seen["restored_alice"] = versions("alice")
seen["restored_bob"] = versions("bob")
ok("UpdateTable", {"table_name": TABLE, "table_options": {"time_to_live": 86400}})

# The sweeper removes bob (every cell expired) and keeps alice (some live).
seen["first_sweep"] = sweep()
seen["after_first_sweep"] = users()
seen["alice_after_first_sweep"] = versions("alice")
# Raising the TTL now brings nothing back: the sweeper removed it.
ok("UpdateTable", {"table_name": TABLE, "table_options": {"time_to_live": 2 * 86400}})
seen["alice_after_sweep_raise"] = versions("alice")
ok("UpdateTable", {"table_name": TABLE, "table_options": {"time_to_live": 86400}})

# A day after alice's newest cells, she goes too.
advance(20 * HOUR + 1)
seen["second_sweep"] = sweep()
seen["after_second_sweep"] = users()

# Bad requests: (operation, body, HTTP status, Tablestore code).
now = post("/_ttlstream/clock", {"AdvanceMillis": 0})[1]["EpochMillis"]
bad = [
    ("CreateTable", {"table_meta": {"table_name": TABLE, "primary_key": [
        {"name": "user", "type": "STRING"}]}}, 409, "OTSObjectAlreadyExist"),
    ("CreateTable", {"table_meta": {"table_name": "Hourly", "primary_key": [
        {"name": "user", "type": "STRING"}]}, "table_options": {"time_to_live": 3600}},
     400, "OTSParameterInvalid"),
    ("CreateTable", {"table_meta": {"table_name": "Floaty", "primary_key": [
        {"name": "user", "type": "DOUBLE"}]}}, 400, "OTSParameterInvalid"),
    ("DescribeTable", {"table_name": "Missing"}, 404, "OTSObjectNotExist"),
    ("PutRow", {"table_name": "Missing", "row": {"primary_key": pk("x")}}, 404, "OTSObjectNotExist"),
    ("PutRow", {"table_name": TABLE, "row": {"primary_key": pk("x"), "attribute_columns": [
        cell("visits", 1, now - DAY - 1)]}}, 400, "OTSParameterInvalid"),
    ("PutRow", {"table_name": TABLE, "row": {"primary_key": pk("x"), "attribute_columns": [
        cell("visits", 1, now + DAY)]}}, 400, "OTSParameterInvalid"),
    ("PutRow", {"table_name": TABLE, "row": {"primary_key": [
        {"name": "user", "value": {"INTEGER": 1}}]}}, 400, "OTSParameterInvalid"),
    ("PutRow", {"table_name": TABLE, "row": {"primary_key": pk("x")},
                "condition": {"row_existence": "EXPECT_EXIST"}}, 403, "OTSConditionCheckFail"),
    ("UpdateRow", {"table_name": TABLE, "row_change": {"primary_key": pk("x"),
        "update_of_attribute_columns": {"PUT": [cell("visits", 1, now)]}},
        "condition": {"row_existence": "EXPECT_EXIST"}}, 403, "OTSConditionCheckFail"),
    ("GetRow", {"table_name": TABLE, "primary_key": pk("x")}, 400, "OTSParameterInvalid"),
    ("GetRow", {"table_name": TABLE, "primary_key": pk("x"), "max_versions": 0},
     400, "OTSParameterInvalid"),
    ("GetRange", {"table_name": TABLE, "max_versions": 1, "limit": 0,
                  "inclusive_start_primary_key": pk("a"), "exclusive_end_primary_key": pk("b")},
     400, "OTSParameterInvalid"),
    ("UpdateTable", {"table_name": TABLE, "table_options": {"max_versions": 0}},
     400, "OTSParameterInvalid"),
    ("DeleteTable", {"table_name": "Missing"}, 404, "OTSObjectNotExist"),
]
answers = []
for operation, body, status, code in bad:
    got_status, answer = post("/" + operation, body)
    answers.append([operation, got_status, answer.get("code")])
    assert (got_status, answer.get("code")) == (status, code), (operation, body, got_status, answer)
# The version error names the column and the allowed range in ms.
version_error = post("/PutRow", bad[5][1])[1]["message"]
seen["version_error"] = version_error
seen["bad_requests"] = answers

# The change records kept now: the sweeper's two row deletions, tagged as
# system deletions, in the shard that followed the first one (a shard closes
# at the first record once it is 4 hours old). The PutRows' records are past
# the stream's 24-hour retention by now, and so is their closed shard.
records = read_stream(stream_id)
seen["records_at_end"] = summary(records)

ok("DeleteTable", {"table_name": TABLE})
seen["tables_left"] = ok("ListTable", {})["table_names"]
print(json.dumps(seen))
