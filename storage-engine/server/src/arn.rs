//! ARNs as clients see them. The engine names its tables' streams with
//! region [`STREAM_ARN_REGION`] (`ddblocal`); a client gets every ARN with
//! the region it signed its request for, and may send an ARN of any region
//! back ("Amazon Resource Names (ARNs)": `arn:aws:dynamodb:REGION:ACCOUNT:
//! table/NAME[/stream/LABEL | /index/NAME]`).

use ttlstream_engine::{STREAM_ARN_ACCOUNT, STREAM_ARN_REGION};

/// `arn` with its region field replaced by `region`; any text that is not
/// an ARN is returned as it is.
fn with_region(arn: &str, region: &str) -> String {
    let mut parts = arn.splitn(5, ':');
    match (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) {
        (Some("arn"), Some(partition), Some(service), Some(_), Some(rest)) => {
            format!("arn:{partition}:{service}:{region}:{rest}")
        }
        _ => arn.to_string(),
    }
}

/// An engine ARN as the client of `region` sees it.
pub(super) fn for_client(arn: &str, region: &str) -> String {
    with_region(arn, region)
}

/// A client's ARN as the engine names it.
pub(super) fn for_engine(arn: &str) -> String {
    with_region(arn, STREAM_ARN_REGION)
}

/// The ARN of table `name` for the client of `region`.
pub(super) fn table(region: &str, name: &str) -> String {
    format!("arn:aws:dynamodb:{region}:{STREAM_ARN_ACCOUNT}:table/{name}")
}

/// The table name of a table ARN (`arn:aws:dynamodb:R:A:table/NAME`), if
/// it is one.
pub(super) fn table_name(arn: &str) -> Option<&str> {
    let rest = arn.splitn(6, ':').nth(5)?;
    let name = rest.strip_prefix("table/")?;
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_swapped_both_ways() {
        let engine =
            "arn:aws:dynamodb:ddblocal:000000000000:table/T/stream/2024-01-01T00:00:00.000";
        let client = for_client(engine, "eu-west-1");
        assert_eq!(
            client,
            "arn:aws:dynamodb:eu-west-1:000000000000:table/T/stream/2024-01-01T00:00:00.000"
        );
        assert_eq!(for_engine(&client), engine);
        assert_eq!(for_engine("not an arn"), "not an arn");
        assert_eq!(
            table_name(&table("us-east-1", "Sessions")),
            Some("Sessions")
        );
        assert_eq!(table_name(engine), None);
    }
}
