//! Exact decimal arithmetic for UpdateExpression `+` / `-` and `ADD` on
//! Numbers ("Update expressions": incrementing and decrementing numeric
//! attributes). Results keep up to 38 significant digits, as DynamoDB does.

use crate::storage::number::Decimal;

/// `a + b` (or `a - b` when `subtract`), both DynamoDB Number strings.
///
/// # Errors
///
/// A message if either operand is not a number or the result exceeds
/// DynamoDB's precision (38 digits) or range.
pub(crate) fn add(a: &str, b: &str, subtract: bool) -> Result<String, String> {
    let x = Decimal::parse(a)?;
    let mut y = Decimal::parse(b)?;
    if subtract && !y.digits.is_empty() {
        y.negative = !y.negative;
    }
    // value = sign * int(digits) * 10^(exponent - len)
    let scale = |d: &Decimal| d.exponent - d.digits.len() as i64;
    let low = scale(&x).min(scale(&y));
    let widen = |d: &Decimal| -> Result<Vec<u8>, String> {
        let pad = usize::try_from(scale(d) - low).map_err(|_| "number out of range")?;
        if pad > 400 {
            return Err("Number overflow: magnitudes too far apart".to_string());
        }
        let mut v = d.digits.clone();
        v.resize(v.len() + pad, 0);
        Ok(v)
    };
    let (xa, ya) = (widen(&x)?, widen(&y)?);
    let (neg, mag) = if x.negative == y.negative {
        (x.negative, add_mag(&xa, &ya))
    } else if cmp_mag(&xa, &ya).is_ge() {
        (x.negative, sub_mag(&xa, &ya))
    } else {
        (y.negative, sub_mag(&ya, &xa))
    };
    let text = format!(
        "{}{}E{}",
        if neg { "-" } else { "" },
        mag.iter().map(|d| char::from(b'0' + d)).collect::<String>(),
        low
    );
    let d = Decimal::parse_dynamodb(&text)
        .map_err(|m| format!("Number overflow. Attempting to store a number with magnitude larger than supported range ({m})"))?;
    Ok(d.canonical())
}

fn strip(v: &[u8]) -> &[u8] {
    let lead = v.iter().take_while(|&&d| d == 0).count();
    &v[lead..]
}

fn cmp_mag(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let (a, b) = (strip(a), strip(b));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn add_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut ia, mut ib, mut carry) = (a.iter().rev(), b.iter().rev(), 0u8);
    loop {
        let (da, db) = (ia.next(), ib.next());
        if da.is_none() && db.is_none() {
            break;
        }
        let s = da.copied().unwrap_or(0) + db.copied().unwrap_or(0) + carry;
        out.push(s % 10);
        carry = s / 10;
    }
    if carry > 0 {
        out.push(carry);
    }
    out.reverse();
    out
}

/// `a - b` for magnitudes with `a >= b`.
fn sub_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let (mut ib, mut borrow) = (b.iter().rev(), 0i8);
    for &da in a.iter().rev() {
        let db = ib.next().copied().unwrap_or(0);
        let mut d = da as i8 - db as i8 - borrow;
        borrow = i8::from(d < 0);
        if d < 0 {
            d += 10;
        }
        out.push(d as u8);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_and_subtracts_exactly() {
        assert_eq!(add("0.1", "0.2", false).as_deref(), Ok("0.3"));
        assert_eq!(add("1", "1.5", true).as_deref(), Ok("-0.5"));
        assert_eq!(add("-3", "3", false).as_deref(), Ok("0"));
        assert_eq!(add("1e3", "1", false).as_deref(), Ok("1001"));
        assert_eq!(add("99", "1", false).as_deref(), Ok("100"));
        assert_eq!(add("0.001", "0", false).as_deref(), Ok("0.001"));
        assert_eq!(add("-5", "-7", false).as_deref(), Ok("-12"));
        assert_eq!(add("10", "0.25", true).as_deref(), Ok("9.75"));
    }

    #[test]
    fn precision_and_range_are_checked() {
        assert!(add("1e125", "9e125", false).is_err());
        assert!(add("1e30", "0.000000001", false).is_err()); // 40 digits
        assert!(add("x", "1", false).is_err());
    }
}
