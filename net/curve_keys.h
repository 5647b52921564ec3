// CURVE key pairs (ZeroMQ's CurveZMQ: Curve25519 keys, written in Z85 as 40 characters).
//
// Key files are text: optional '#' comment lines, then the key on one line. A key pair
// PREFIX is two files: PREFIX.key holds the secret key (mode 0600; the public key is derived
// from it) and PREFIX.pub the public key, which is what a broker's authorised-keys
// directory holds and what a node needs to know its broker.
#ifndef POLLEN_NET_CURVE_KEYS_H_
#define POLLEN_NET_CURVE_KEYS_H_

#include <map>
#include <string>

#include "base/status.h"

namespace pollen::net {

struct CurveKeyPair {
  std::string public_key;  // Z85, 40 characters
  std::string secret_key;  // Z85, 40 characters
};

// A new random key pair (libzmq's zmq_curve_keypair, from libsodium's random source).
// An error only when this libzmq was built without CURVE.
Result<CurveKeyPair> GenerateKeyPair();

// Writes PREFIX.key (created 0600) and PREFIX.pub. Refuses to replace an existing file
// unless `overwrite`.
Status WriteKeyPair(const std::string& prefix, const CurveKeyPair& keys, bool overwrite);

// The key in a .pub file, checked to be valid Z85 of 32 bytes.
Result<std::string> ReadPublicKey(const std::string& path);

// The pair from a .key file (the public half derived from the secret).
Result<CurveKeyPair> ReadSecretKey(const std::string& path);

// The secret key file a --key flag names: PREFIX.key for a PREFIX (as `pollen keygen`
// writes), or the file itself when it already ends in ".key" (Kubernetes manifests name
// the mounted file).
std::string SecretKeyFile(const std::string& prefix_or_file);

// Logs a warning when users outside the file's owner and group may read the secret key file
// `path`, or its group may write it. Group read is fine: Kubernetes gives a Secret to a
// non-root container through the pod's fsGroup (mode 0440, group fsGroup).
void WarnIfKeyExposed(const std::string& path);

// Every "*.pub" file of `dir`, by public key, each mapped to its file name without ".pub"
// (a readable name for logs). A file that is not a valid key is an error naming it.
Result<std::map<std::string, std::string>> ReadAuthorizedKeys(const std::string& dir);

}  // namespace pollen::net

#endif  // POLLEN_NET_CURVE_KEYS_H_
