//! Who the client is: the address a request is counted under.
//!
//! A forwarded address (`X-Forwarded-For`, or the same metadata on a gRPC call)
//! is believed only from a peer that is a trusted proxy: the ingress in front of
//! the gateway, or the gateway in front of a service. From anyone else the peer
//! itself is the client, so whoever reaches a port cannot pick the address a
//! limit counts.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

/// The header (and gRPC metadata key) that carries the client's address.
pub const FORWARDED_FOR: &str = "x-forwarded-for";

/// The gRPC metadata key that carries the browser's `User-Agent` from the
/// gateway's REST routes to auth (gRPC keeps `user-agent` for its own client);
/// only a label for the person's list of their devices, never trusted.
pub const CLIENT_USER_AGENT: &str = "x-client-user-agent";

/// The networks whose forwarded client addresses are believed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Trusts no one: every peer is the client.
    pub fn none() -> TrustedProxies {
        TrustedProxies::default()
    }

    /// Trusts the loopback networks only: a service inside the `all` process,
    /// which only the in-process gateway reaches on a loopback port.
    pub fn loopback() -> TrustedProxies {
        TrustedProxies(vec![
            IpNet::V4(Ipv4Net::new_assert(Ipv4Addr::LOCALHOST, 8).trunc()),
            IpNet::V6(Ipv6Net::new_assert(Ipv6Addr::LOCALHOST, 128)),
        ])
    }

    /// These networks and `other`'s.
    pub fn with(mut self, other: &TrustedProxies) -> TrustedProxies {
        self.0.extend(other.0.iter().copied());
        self
    }

    pub fn trusts(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.0.iter().any(|net| net.contains(&address))
    }

    /// The client behind `peer`: walking `X-Forwarded-For` from the right, the
    /// first address that is not a trusted proxy. Without a trusted peer, or
    /// with a malformed header, the peer itself.
    /// IPv4-mapped IPv6 addresses count as the IPv4 addresses they are.
    pub fn client(&self, peer: IpAddr, forwarded_for: Option<&str>) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.trusts(peer) {
            return peer;
        }
        let Some(header) = forwarded_for else {
            return peer;
        };
        let mut client = peer;
        for hop in header.rsplit(',') {
            let Ok(hop) = hop.trim().parse::<IpAddr>() else {
                return client;
            };
            client = hop.to_canonical();
            if !self.trusts(client) {
                break;
            }
        }
        client
    }
}

impl FromStr for TrustedProxies {
    type Err = String;

    /// A comma-separated list of CIDRs or single addresses; empty trusts no one.
    fn from_str(value: &str) -> Result<TrustedProxies, String> {
        value
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(|part| {
                part.parse::<IpNet>()
                    .or_else(|_| part.parse::<IpAddr>().map(IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| format!("'{part}' is not a CIDR (e.g. 10.0.0.0/8) or an address"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(TrustedProxies)
    }
}

impl fmt::Display for TrustedProxies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nets: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&nets.join(","))
    }
}

/// The address a per-address limit counts: IPv4 as it is, IPv6 by its /64,
/// since one host is handed a whole /64 and can use any address in it.
pub fn limit_key(address: IpAddr) -> String {
    match address.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !u128::from(u64::MAX);
            format!("{}/64", Ipv6Addr::from(prefix))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(value: &str) -> IpAddr {
        value.parse().unwrap()
    }

    fn proxies(value: &str) -> TrustedProxies {
        value.parse().unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let trusted = proxies("10.0.0.0/8");
        assert_eq!(
            trusted.client(ip("203.0.113.9"), Some("198.51.100.1")),
            ip("203.0.113.9")
        );
        assert_eq!(
            TrustedProxies::none().client(ip("10.0.0.1"), Some("198.51.100.1")),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn a_trusted_peer_forwards_the_first_untrusted_hop_from_the_right() {
        let trusted = proxies("10.0.0.0/8, 192.0.2.7");
        // The client put a made-up address first; the ingress appended the real one.
        let header = "1.2.3.4, 198.51.100.20, 192.0.2.7";
        assert_eq!(
            trusted.client(ip("10.1.2.3"), Some(header)),
            ip("198.51.100.20")
        );
    }

    #[test]
    fn a_trusted_peer_without_a_header_or_with_garbage_is_itself() {
        let trusted = proxies("10.0.0.0/8");
        assert_eq!(trusted.client(ip("10.0.0.5"), None), ip("10.0.0.5"));
        assert_eq!(
            trusted.client(ip("10.0.0.5"), Some("not-an-address")),
            ip("10.0.0.5")
        );
    }

    #[test]
    fn loopback_trusts_v4_and_v6_loopback_and_mapped_addresses() {
        let trusted = TrustedProxies::loopback();
        assert!(trusted.trusts(ip("127.0.0.1")));
        assert!(trusted.trusts(ip("127.1.2.3")));
        assert!(trusted.trusts(ip("::1")));
        assert!(trusted.trusts(ip("::ffff:127.0.0.1")));
        assert!(!trusted.trusts(ip("10.0.0.1")));
    }

    #[test]
    fn a_bad_list_names_the_bad_part_and_empty_trusts_no_one() {
        let err = "10.0.0.0/8, example.org"
            .parse::<TrustedProxies>()
            .unwrap_err();
        assert!(err.contains("example.org"), "{err}");
        assert_eq!(proxies(""), TrustedProxies::none());
        assert_eq!(proxies("10.1.2.3/8").to_string(), "10.0.0.0/8");
    }

    #[test]
    fn ipv6_addresses_of_one_slash_64_share_a_limit_key() {
        assert_eq!(
            limit_key(ip("2001:db8:1:2::1")),
            limit_key(ip("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        );
        assert_ne!(
            limit_key(ip("2001:db8:1:2::1")),
            limit_key(ip("2001:db8:1:3::1"))
        );
        assert_eq!(limit_key(ip("192.0.2.1")), "192.0.2.1");
        assert_eq!(limit_key(ip("::ffff:192.0.2.1")), "192.0.2.1");
    }
}
