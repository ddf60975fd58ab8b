'use strict';
// nodecure: DER for the tests in test/cure/ that need inputs OpenSSL takes
// long over. Nothing here loads test/common/index.js, so that a child
// evaluating a test's source (printWithoutOptions()) can require it.

// One DER element (tag, length, contents); an OBJECT IDENTIFIER from its
// contents in hex; an INTEGER.
function der(tag, ...parts) {
  const body = Buffer.concat(parts);
  let len;
  if (body.length < 0x80) {
    len = Buffer.from([body.length]);
  } else {
    const bytes = [];
    for (let n = body.length; n > 0; n >>= 8) bytes.unshift(n & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, body]);
}
const oid = (hex) => Buffer.from(`06${(hex.length / 2).toString(16).padStart(2, '0')}${hex}`, 'hex');
function integer(n) {
  const bytes = [];
  for (; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  if (bytes.length === 0 || bytes[0] & 0x80) bytes.unshift(0);
  return der(0x02, Buffer.from(bytes));
}

// The DER of a certificate (not validly signed: nothing here checks it)
// whose subject and issuer are `entries` RDNs of CN=x, with `sans` DNS
// names as subject alternative names and `aia` OCSP URIs as authority
// information access, and a signature of `signatureBytes`: an upload that
// makes OpenSSL's work on it as long as its author wants.
let spki;  // agent1's public key, made once
function certificateDer({ entries = 1, sans = 0, aia = 0,
                          signatureBytes = 256 } = {}) {
  const crypto = require('crypto');
  const fixtures = require('./fixtures');
  const rdn = der(0x31, der(0x30, oid('550403'), der(0x0c, Buffer.from('x'))));
  const name = der(0x30, Buffer.concat(new Array(entries).fill(rdn)));
  const sha256WithRSA = der(0x30, oid('2a864886f70d01010b'),
                            Buffer.from([5, 0]));
  spki ??= crypto.createPublicKey(fixtures.readKey('agent1-key.pem'))
    .export({ type: 'spki', format: 'der' });
  const many = (count, make) => {
    const parts = [];
    for (let i = 0; i < count; i++) parts.push(make(i));
    return Buffer.concat(parts);
  };
  const extensions = [];
  if (sans > 0) {
    extensions.push(der(0x30, oid('551d11'), der(0x04, der(0x30, many(
      sans, (i) => der(0x82, Buffer.from(`h${i}.example.com`)))))));
  }
  if (aia > 0) {
    extensions.push(der(0x30, oid('2b06010505070101'), der(0x04, der(0x30, many(
      aia, (i) => der(0x30, oid('2b06010505073001'),
                      der(0x86, Buffer.from(`http://o${i}.example.com/`))))))));
  }
  const tbs = der(0x30,
                  der(0xa0, der(0x02, Buffer.from([2]))),
                  der(0x02, Buffer.from([1])),
                  sha256WithRSA, name,
                  der(0x30, der(0x17, Buffer.from('250101000000Z')),
                      der(0x17, Buffer.from('350101000000Z'))),
                  name, spki,
                  ...(extensions.length > 0 ?
                    [der(0xa3, der(0x30, ...extensions))] : []));
  return der(0x30, tbs, sha256WithRSA,
             der(0x03, Buffer.from([0]), Buffer.alloc(signatureBytes, 7)));
}

// The DER of a CRL (not validly signed) of `revoked` serial numbers.
function crlDer({ revoked = 1 } = {}) {
  const rdn = der(0x31, der(0x30, oid('550403'), der(0x0c, Buffer.from('x'))));
  const sha256WithRSA = der(0x30, oid('2a864886f70d01010b'),
                            Buffer.from([5, 0]));
  const date = der(0x17, Buffer.from('250101000000Z'));
  const entries = [];
  for (let i = 1; i <= revoked; i++) entries.push(der(0x30, integer(i), date));
  const tbs = der(0x30, integer(1), sha256WithRSA, der(0x30, rdn), date,
                  der(0x17, Buffer.from('350101000000Z')),
                  ...(revoked > 0 ? [der(0x30, Buffer.concat(entries))] : []));
  return der(0x30, tbs, sha256WithRSA,
             der(0x03, Buffer.from([0]), Buffer.alloc(256, 7)));
}

// The PEM of `count` small certificates that differ (as a CA bundle).
function caBundle(count) {
  const parts = [];
  for (let i = 0; i < count; i++) {
    parts.push(pem(certificateDer({ sans: 1 + (i % 50),
                                    entries: 1 + ((i >> 6) & 7) })));
  }
  return parts.join('');
}

// `bytes` (DER) as PEM with the label `label`.
function pem(bytes, label = 'CERTIFICATE') {
  const b64 = bytes.toString('base64').match(/.{1,64}/g).join('\n');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

module.exports = {
  caBundle,
  certificateDer,
  crlDer,
  der,
  integer,
  oid,
  pem,
};
