//! The `cidr` operator: IPv4 and IPv6 address blocks (EventBridge only).
//!
//! Source: "Content filtering in Amazon EventBridge event patterns", section
//! "IP address matching" (IPv4 and IPv6 CIDR notation). Host bits below the
//! prefix are ignored, so `10.0.0.7/24` means `10.0.0.0/24`.

use std::net::IpAddr;

/// A validated CIDR block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cidr {
    /// The block as written.
    text: String,
    v6: bool,
    network: u128,
    mask: u128,
}

impl Cidr {
    /// Parse `addr/len`; the error is a reason for [`crate::PatternError::Cidr`].
    pub(crate) fn parse(text: &str) -> Result<Self, &'static str> {
        let (addr, len) = text
            .split_once('/')
            .ok_or("it has no /prefix-length (write e.g. 10.0.0.0/24)")?;
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| "the address is not IPv4 or IPv6")?;
        if len.is_empty() || !len.bytes().all(|b| b.is_ascii_digit()) || len.len() > 3 {
            return Err("the prefix length is not a number");
        }
        let len: u32 = len
            .parse()
            .map_err(|_| "the prefix length is not a number")?;
        let (v6, bits, width) = match addr {
            IpAddr::V4(v4) => (false, u128::from(u32::from(v4)), 32),
            IpAddr::V6(v6) => (true, u128::from(v6), 128),
        };
        if len > width {
            return Err("the prefix length is longer than the address");
        }
        let mask = if len == 0 {
            0
        } else {
            (u128::MAX << (128 - len)) >> (128 - width)
        };
        Ok(Self {
            text: text.to_owned(),
            v6,
            network: bits & mask,
            mask,
        })
    }

    /// The block as written.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Whether `value` is an IP address inside this block.
    pub(crate) fn contains(&self, value: &str) -> bool {
        match value.parse::<IpAddr>() {
            Ok(IpAddr::V4(v4)) if !self.v6 => u128::from(u32::from(v4)) & self.mask == self.network,
            Ok(IpAddr::V6(v6)) if self.v6 => u128::from(v6) & self.mask == self.network,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> Cidr {
        Cidr::parse(text).unwrap_or_else(|reason| panic!("{text}: {reason}"))
    }

    #[test]
    fn ipv4_blocks() {
        assert!(c("10.0.0.0/24").contains("10.0.0.255"));
        assert!(!c("10.0.0.0/24").contains("10.0.1.0"));
        assert!(c("10.0.0.9/24").contains("10.0.0.1"));
        assert!(c("0.0.0.0/0").contains("192.168.1.1"));
        assert!(c("192.168.1.1/32").contains("192.168.1.1"));
        assert!(!c("192.168.1.1/32").contains("192.168.1.2"));
        assert!(!c("10.0.0.0/8").contains("not an ip"));
        assert!(!c("10.0.0.0/8").contains("::1"));
    }

    #[test]
    fn ipv6_blocks() {
        assert!(c("2001:db8::/32").contains("2001:db8:1::1"));
        assert!(!c("2001:db8::/32").contains("2001:db9::1"));
        assert!(c("::/0").contains("::1"));
        assert!(!c("::/0").contains("10.0.0.1"));
    }

    #[test]
    fn malformed_blocks_are_rejected() {
        for bad in [
            "10.0.0.0",
            "10.0.0.0/33",
            "10.0.0/8",
            "x/8",
            "10.0.0.0/",
            "10.0.0.0/-1",
            "::/129",
        ] {
            assert!(Cidr::parse(bad).is_err(), "{bad}");
        }
    }
}
