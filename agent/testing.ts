import ssh2 from "ssh2";

/**
 * An ed25519 key pair in OpenSSH format for tests and benchmarks. ssh2's generator now and then
 * (about 1 in 300) writes a private key its own parser rejects: such keys are thrown away.
 */
export function ed25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync("ed25519");
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
}
