import { describe, expect, it } from 'vitest';
import { carriedIPv4, ipv6Bytes, isPublicAddress, nonPublicReason } from '../../src/net/public-address.js';

/**
 * The one judge of "is this address public" (src/net/public-address.ts). Issue 22: NAT64, 6to4, IPv4-compatible and
 * site-local addresses went through; an IPv6 address carrying an IPv4 one must be judged by that IPv4 address.
 */
describe('is this address public', () => {
  it.each([
    // IPv4
    ['0.0.0.0', /unspecified/],
    ['127.0.0.1', /loopback/],
    ['10.0.0.5', /private/],
    ['172.20.0.1', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['224.0.0.1', /multicast/],
    ['192.0.2.1', /documentation/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.9', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['192.0.0.8', /reserved/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /reserved/],
    // IPv6 as itself
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['fd00::1', /private/],
    ['fc00::1', /private/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['fec0::1', /site-local/],
    ['feff::1', /site-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['3fff::1', /documentation/],
    ['2001:2::1', /benchmarking/],
    ['100::1', /reserved/],
    ['2001:10::1', /reserved/],
    ['64:ff9b:1::a00:5', /reserved/],
    ['5f00::1', /not a global unicast/],
    ['4000::1', /not a global unicast/],
    ['::2', /not a global unicast/],
    // IPv4 carried in IPv6: judged by the IPv4 address
    ['::ffff:127.0.0.1', /is 127\.0\.0\.1 \(IPv4-mapped\), a loopback/],
    ['::ffff:7f00:1', /is 127\.0\.0\.1 \(IPv4-mapped\), a loopback/],
    ['::ffff:10.0.0.1', /is 10\.0\.0\.1 \(IPv4-mapped\), a private/],
    ['::ffff:0:169.254.169.254', /is 169\.254\.169\.254 \(IPv4-translated\), a link-local/],
    ['::127.0.0.1', /is 127\.0\.0\.1 \(IPv4-compatible\), a loopback/],
    ['::a00:5', /is 10\.0\.0\.5 \(IPv4-compatible\), a private/],
    ['64:ff9b::7f00:1', /is 127\.0\.0\.1 \(NAT64\), a loopback/],
    ['64:ff9b::169.254.169.254', /is 169\.254\.169\.254 \(NAT64\), a link-local/],
    ['64:ff9b::c0a8:101', /is 192\.168\.1\.1 \(NAT64\), a private/],
    ['2002:7f00:1::', /is 127\.0\.0\.1 \(6to4\), a loopback/],
    ['2002:a00:5:1::1', /is 10\.0\.0\.5 \(6to4\), a private/],
    ['2002:a9fe:a9fe::1', /is 169\.254\.169\.254 \(6to4\), a link-local/],
    // Teredo: the client address is the last 32 bits inverted (80ff:fffe → 127.0.0.1), the server the third and fourth groups
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', /is 127\.0\.0\.1 \(Teredo client\), a loopback/],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffa', /is 10\.0\.0\.5 \(Teredo client\), a private/],
    ['2001:0:a00:5:8000:63bf:f7f7:f7f7', /is 10\.0\.0\.5 \(Teredo server\), a private/],
    // Not an address at all
    ['files.example.com', /not an IP address/],
    ['', /not an IP address/],
  ])('refuses %s', (address, reason) => {
    expect(isPublicAddress(address)).toBe(false);
    expect(nonPublicReason(address)).toMatch(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:2800:220:1:248:1893:25c8:1946',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '::ffff:93.184.216.34',
    '::ffff:5db8:d822',
    '::8.8.8.8',
    '64:ff9b::808:808',
    '64:ff9b::93.184.216.34',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('accepts %s', (address) => {
    expect(nonPublicReason(address)).toBeUndefined();
    expect(isPublicAddress(address)).toBe(true);
  });

  it('reads IPv6 addresses in every spelling', () => {
    expect(Array.from(ipv6Bytes('::ffff:1.2.3.4')!)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
    expect(Array.from(ipv6Bytes('2002:7f00:1::')!).slice(0, 6)).toEqual([0x20, 0x02, 127, 0, 0, 1]);
    expect(Array.from(ipv6Bytes('1:2:3:4:5:6:7:8')!)).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    expect(ipv6Bytes('1::2::3')).toBeUndefined();
    expect(ipv6Bytes('1:2:3')).toBeUndefined();
    expect(carriedIPv4(ipv6Bytes('2001:db8::1')!)).toEqual([]);
  });
});
