"""Which addresses the fetcher may connect to, and which spellings of an address it reads.

Pure functions, no network. `public_address` answers True only for a global unicast address;
`literal_host` reads the address a URL's host names literally and refuses every spelling of
an address other than the canonical one, because the libraries and resolvers between a URL
and a socket do not agree on them (inet_aton reads `127.1`, `0x7f.1` and `2130706433` as
127.0.0.1; a browser does the same; a check that does not is walked around).

Python's own flags are not enough on 3.11: `is_global` answers True for IPv4 multicast,
for the IPv6 site-local range, for NAT64 and 6to4 addresses that carry an inward IPv4 address,
and 192.0.0.0/24 is only partly private there; so the ranges are named here as well.
"""
from __future__ import annotations

import ipaddress
import re

from integrations.web import FetchRefused

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# IPv4 ranges refused on top of what `is_global` already refuses (kept even where 3.11 agrees, so
# the list reads as the rule rather than as a guess at the standard library's version).
_REFUSED_V4 = tuple(ipaddress.IPv4Network(net) for net in (
    "0.0.0.0/8",        # "this network": 0.0.0.0 reaches the local host on Linux
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",  # private (RFC 1918)
    "100.64.0.0/10",    # carrier-grade NAT: inside a provider, where 100.100.100.200 is Alibaba's metadata
    "127.0.0.0/8",      # loopback, all of it
    "169.254.0.0/16",   # link-local, where most clouds serve instance metadata and credentials
    "192.0.0.0/24",     # IETF protocol assignments (Oracle Cloud's metadata is 192.0.0.192)
    "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24",  # documentation
    "192.88.99.0/24",   # the retired 6to4 relay anycast
    "198.18.0.0/15",    # benchmarking
    "224.0.0.0/4",      # multicast: 3.11's is_global answers True for it
    "240.0.0.0/4",      # reserved, with 255.255.255.255 (broadcast) inside it
))

# IPv6 ranges refused outright, whatever they carry.
_REFUSED_V6 = tuple(ipaddress.IPv6Network(net) for net in (
    "::/96",            # unspecified, loopback and the deprecated IPv4-compatible form (::127.0.0.1)
    "64:ff9b:1::/48",   # local-use NAT64 (RFC 8215): a translator inside the network
    "100::/64",         # discard-only
    "2001::/23",        # IETF protocol assignments, with Teredo (2001::/32), whose client part is any IPv4
    "2001:db8::/32", "3fff::/20",  # documentation
    "5f00::/16",        # segment routing identifiers
    "fc00::/7",         # unique-local (AWS serves metadata on fd00:ec2::254)
    "fe80::/10",        # link-local
    "fec0::/10",        # site-local (deprecated; 3.11's is_global answers True for it)
    "ff00::/8",         # multicast
))

# Cloud metadata services, named even where a range above already covers them: they hand out the
# credentials of the machine the service runs on. 168.63.129.16 (Azure's wire server) is otherwise
# a public address, reachable only from inside Azure and serving the host's own configuration.
_METADATA = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "169.254.170.2", "169.254.169.253", "100.100.100.200", "168.63.129.16",
    "192.0.0.192", "fd00:ec2::254", "fd00:ec2::23"))

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")

# The one spelling of an IPv4 address read as such: four decimal parts, no leading zeros.
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_DOTTED_QUAD = re.compile(rf"{_OCTET}(?:\.{_OCTET}){{3}}")
# A last label that is a number (decimal, or hex with 0x) makes the host an IPv4 address to
# inet_aton and to browsers (the URL standard's "ends in a number"), however few parts it has.
_NUMBER = re.compile(r"[0-9]+|0[xX][0-9a-fA-F]*")


def public_address(ip: Address) -> bool:
    """True only for a global unicast address; the IPv4 forms carried in IPv6 (mapped, NAT64,
    6to4) are judged by the IPv4 address they carry."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            # A zone id only means something on a link: the address is link-local by nature.
            return False
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            # These forms reach the IPv4 address inside them (the kernel for ::ffff:a.b.c.d, a
            # translator for NAT64, a relay for 6to4), so that address is the one to judge.
            return public_address(embedded)
        if ip in _METADATA or any(ip in net for net in _REFUSED_V6):
            return False
    elif ip in _METADATA or any(ip in net for net in _REFUSED_V4):
        return False
    return ip.is_global and not (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
                                 or ip.is_reserved or ip.is_unspecified)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address carries."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip.sixtofour


def literal_host(host: str) -> Address | None:
    """The address a host names literally (dotted quad, bracketed or bare IPv6), else None.
    Raises FetchRefused('odd_spelling') for any other spelling of an address."""
    if "%" in host:
        # A zone id (fe80::1%eth0) picks an interface on this machine; a percent-encoded host
        # (%31%32%37.0.0.1) is decoded by browsers into an address: neither is a store's name.
        raise FetchRefused("odd_spelling", host)
    bracketed = host.startswith("[") and host.endswith("]")
    if bracketed or ":" in host:
        try:
            return ipaddress.IPv6Address(host[1:-1] if bracketed else host)
        except ValueError:
            raise FetchRefused("odd_spelling", host) from None
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if not _NUMBER.fullmatch(labels[-1]):
        return None
    # Only the canonical dotted quad is read as an address: decimal (2130706433), octal
    # (0177.0.0.1), hex (0x7f.0.0.1), short (127.1), zero-padded (127.000.000.001) and
    # trailing-dot forms would each be read differently by someone along the way.
    if not _DOTTED_QUAD.fullmatch(host):
        raise FetchRefused("odd_spelling", host)
    return ipaddress.IPv4Address(host)
