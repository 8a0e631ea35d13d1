"""The full life of a TTL item against `ttlstream serve`, with boto3: the
table with a stream, TTL enabled, an expired item swept, and its REMOVE record
read with the dynamodbstreams client.

Usage: python ttl_life.py ENDPOINT_URL

The server runs with `--clock manual` and `--credentials AKID:SECRET`; boto3
signs every call (so botocore's SigV4 is verified too), and the admin paths
are called with requests signed by botocore's signer. Prints one JSON line
summarising what was seen; any unexpected answer raises (exit status 1).
"""

import json
import sys
import urllib.request

import boto3
import botocore.auth
import botocore.awsrequest
import botocore.credentials
from botocore.exceptions import ClientError

ENDPOINT = sys.argv[1]
ACCESS_KEY, SECRET = "AKID", "SECRET"
REGION = "eu-west-1"  # not the server's default: ARNs and records must follow the signature
TABLE = "SessionData"


def admin(path, body=b""):
    """POSTs to an admin path, signed like any API call."""
    request = botocore.awsrequest.AWSRequest(
        method="POST", url=ENDPOINT + path, data=body,
        headers={"Content-Type": "application/json"},
    )
    credentials = botocore.credentials.Credentials(ACCESS_KEY, SECRET)
    botocore.auth.SigV4Auth(credentials, "dynamodb", REGION).add_auth(request)
    prepared = request.prepare()
    http = urllib.request.Request(prepared.url, data=body, method="POST",
                                  headers=dict(prepared.headers))
    with urllib.request.urlopen(http) as response:
        return json.loads(response.read())


def client(service, secret=SECRET):
    return boto3.client(service, endpoint_url=ENDPOINT, region_name=REGION,
                        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=secret)


ddb = client("dynamodb")
seen = {}

# A wrong secret is refused with DynamoDB's exception.
try:
    client("dynamodb", secret="WRONG").list_tables()
    raise AssertionError("a wrong secret was accepted")
except ClientError as e:
    seen["wrong_secret"] = e.response["Error"]["Code"]
    assert seen["wrong_secret"] == "InvalidSignatureException", e.response

created = ddb.create_table(
    TableName=TABLE,
    KeySchema=[{"AttributeName": "UserName", "KeyType": "HASH"},
               {"AttributeName": "SessionId", "KeyType": "RANGE"}],
    AttributeDefinitions=[{"AttributeName": "UserName", "AttributeType": "S"},
                          {"AttributeName": "SessionId", "AttributeType": "S"}],
    StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    BillingMode="PAY_PER_REQUEST",
)
stream_arn = created["TableDescription"]["LatestStreamArn"]
assert stream_arn.startswith(f"arn:aws:dynamodb:{REGION}:"), stream_arn

ddb.update_time_to_live(
    TableName=TABLE,
    TimeToLiveSpecification={"AttributeName": "ExpirationTime", "Enabled": True},
)
seen["ttl_after_update"] = ddb.describe_time_to_live(TableName=TABLE)[
    "TimeToLiveDescription"]["TimeToLiveStatus"]
assert seen["ttl_after_update"] == "ENABLING", seen
admin("/_ttlstream/clock", json.dumps({"AdvanceMillis": 5000}).encode())
seen["ttl_later"] = ddb.describe_time_to_live(TableName=TABLE)[
    "TimeToLiveDescription"]["TimeToLiveStatus"]
assert seen["ttl_later"] == "ENABLED", seen

now_secs = admin("/_ttlstream/clock", json.dumps({"AdvanceMillis": 0}).encode())[
    "EpochMillis"] // 1000
key = {"UserName": {"S": "user1"}, "SessionId": {"S": "74686572652773"}}
ddb.put_item(TableName=TABLE, Item={**key, "ExpirationTime": {"N": str(now_secs - 60)}})
ddb.put_item(TableName=TABLE, Item={"UserName": {"S": "user2"}, "SessionId": {"S": "s2"},
                                    "ExpirationTime": {"N": str(now_secs + 3600)}})
# The legacy Expected parameter guards a write as DynamoDB's does.
try:
    ddb.put_item(TableName=TABLE, Item={**key, "ExpirationTime": {"N": "0"}},
                 Expected={"UserName": {"Exists": False}})
    raise AssertionError("a false Expected condition wrote")
except ClientError as e:
    seen["legacy_expected"] = e.response["Error"]["Code"]
# Expired, but visible until the sweeper deletes it (as in DynamoDB).
assert "Item" in ddb.get_item(TableName=TABLE, Key=key), "expired item vanished before a sweep"

seen["swept"] = admin("/_ttlstream/sweep")["Deleted"]
assert seen["swept"] == 1, seen
assert "Item" not in ddb.get_item(TableName=TABLE, Key=key), "expired item still there"
remaining = ddb.scan(TableName=TABLE)["Items"]
seen["remaining"] = [i["UserName"]["S"] for i in remaining]
assert seen["remaining"] == ["user2"], seen

# The deletion in the table's stream, read with the DynamoDB Streams client:
# a REMOVE carrying the TTL service's identity (GetRecords casing).
streams = client("dynamodbstreams")
listed = streams.list_streams(TableName=TABLE)["Streams"]
assert [s["StreamArn"] for s in listed] == [stream_arn], (listed, stream_arn)
shards = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]
iterator = streams.get_shard_iterator(
    StreamArn=stream_arn, ShardId=shards[0]["ShardId"], ShardIteratorType="TRIM_HORIZON",
)["ShardIterator"]
records = streams.get_records(ShardIterator=iterator)["Records"]
removes = [r for r in records if r["eventName"] == "REMOVE"]
assert len(removes) == 1, records
seen["remove_identity"] = removes[0]["userIdentity"]
seen["aws_region"] = removes[0]["awsRegion"]
seen["remove_old_image_user"] = removes[0]["dynamodb"]["OldImage"]["UserName"]["S"]

print(json.dumps(seen, sort_keys=True))
