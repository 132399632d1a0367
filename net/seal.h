/*
 * seal.h: the cryptography of the handshake and of sealed frames
 * (mapmon-protocol(7), AUTHENTICATION), as functions over bytes: no
 * sockets, so that the handshake and the frame opener can be fuzzed and
 * checked against the protocol page's worked example.  Every primitive is
 * OpenSSL's libcrypto: SHA-256, HMAC-SHA256, HKDF-SHA256, AES-256-GCM and
 * ChaCha20-Poly1305; comparisons of secrets are CRYPTO_memcmp().
 *
 *  - the transcript hash TH is SHA-256 over "mapmon-auth-1", the client's
 *    HELLO payload and the server's, each behind its u32 big-endian length:
 *    the names, the protocol, both nonces, the features, every byte;
 *  - each side proves its key K with HMAC-SHA256(K, LABEL || TH), LABEL
 *    "mapmon client proof" or "mapmon server proof";
 *  - the session keys are HKDF-SHA256(IKM K, salt TH, info "mapmon c2s" or
 *    "mapmon s2c"), 32 bytes each, one per direction;
 *  - a sealed frame keeps its 16-byte header in the clear as the AEAD's
 *    associated data (its length counts the 16-byte tag) and carries the
 *    payload encrypted, then the tag.  The 12-byte nonce is four zero bytes
 *    and the direction's frame counter, u64 big-endian: the first frame is
 *    0.  Every SEAL_REKEY_FRAMES frames the direction's key becomes
 *    HKDF-SHA256(IKM key, no salt, info "mapmon rekey"); the counter runs
 *    on, and a direction that has sealed SEAL_MAX_FRAMES frames refuses to
 *    seal more (the connection ends long before a nonce could repeat).
 *
 * A struct seal is one direction: the sender seals, the receiver opens,
 * each counting frames, so a frame replayed, dropped or reordered fails
 * to open.  Errors are -1 with *cause where a cause helps.
 */
#ifndef SEAL_H
#define SEAL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <openssl/evp.h>

#define SEAL_KEY_LEN 32
#define SEAL_NONCE_LEN 32 /* a HELLO's nonce */
#define SEAL_PROOF_LEN 32
#define SEAL_HASH_LEN 32
#define SEAL_TAG_LEN 16
#define SEAL_IV_LEN 12
#define SEAL_HEADER_LEN 16 /* the frame header, the associated data */
#define SEAL_REKEY_FRAMES ((uint64_t)1 << 32)
#define SEAL_MAX_FRAMES ((uint64_t)1 << 62)

#define SEAL_TRANSCRIPT_LABEL "mapmon-auth-1"

enum seal_cipher {
	SEAL_AES_256_GCM,
	SEAL_CHACHA20_POLY1305,
};
#define SEAL_NCIPHERS 2

/* "aes-256-gcm" or "chacha20-poly1305". */
const char *seal_cipher_name(enum seal_cipher);
/* The cipher of that name: 0, or -1 for a name not known. */
int seal_cipher_find(const char *name, enum seal_cipher *out);

/* th = SHA-256 of the transcript (see the top of this file). */
void seal_transcript(uint8_t th[SEAL_HASH_LEN], const void *client_hello,
    size_t clen, const void *server_hello, size_t slen);

/* The client's (server 0) or the server's (server 1) proof of key. */
void seal_proof(uint8_t out[SEAL_PROOF_LEN], const uint8_t key[SEAL_KEY_LEN],
    int server, const uint8_t th[SEAL_HASH_LEN]);

/* 1 when the two proofs are equal, compared in constant time. */
int seal_proof_equal(const uint8_t *a, const uint8_t *b);

/* The session keys of both directions. */
void seal_session_keys(const uint8_t key[SEAL_KEY_LEN],
    const uint8_t th[SEAL_HASH_LEN], uint8_t c2s[SEAL_KEY_LEN],
    uint8_t s2c[SEAL_KEY_LEN]);

/*
 * The "auth" object of a client's HELLO, as the server reads it: its
 * nonce (base64 of SEAL_NONCE_LEN bytes) and the first of its "ciphers"
 * this side has.  0, or a negative errno with *cause: -EINVAL for a
 * shape or a nonce that is wrong, -EPROTONOSUPPORT when no cipher is in
 * common.
 */
int seal_hello_offer(const json_t *auth, uint8_t nonce[SEAL_NONCE_LEN],
    enum seal_cipher *cipher, char **cause);

/*
 * An AUTH frame's payload p[0..len), {"proof": BASE64}: 0 with the proof,
 * or -1 with *cause.
 */
int seal_auth_parse(const void *p, size_t len, uint8_t proof[SEAL_PROOF_LEN],
    char **cause);

/* Fill p with n random bytes from the system: 0, or -1 when it fails. */
int seal_random(void *p, size_t n);

struct seal {
	EVP_CIPHER_CTX *ctx;
	enum seal_cipher cipher;
	uint8_t key[SEAL_KEY_LEN];
	uint64_t counter; /* frames sealed or opened */
	int encrypt;
};

/*
 * Set s up for one direction (encrypt: the sender's end) with key.  0, or
 * -1 when OpenSSL cannot (out of memory): the caller closes the
 * connection.  seal_clear() wipes it (a zeroed struct may be cleared).
 */
int seal_init(struct seal *s, enum seal_cipher, const uint8_t *key,
    int encrypt);
void seal_clear(struct seal *s);

/*
 * Seal one frame in pieces: seal_begin() with its header (whose length is
 * the payload's plus SEAL_TAG_LEN), seal_update() for each piece of the
 * payload (out may be in), seal_end() writes the tag.  -1 when the
 * direction has sealed SEAL_MAX_FRAMES frames, or OpenSSL fails.
 */
int seal_begin(struct seal *s, const uint8_t hdr[SEAL_HEADER_LEN]);
int seal_update(struct seal *s, const uint8_t *in, size_t len, uint8_t *out);
int seal_end(struct seal *s, uint8_t tag[SEAL_TAG_LEN]);

/* The same at once: out[0..len + SEAL_TAG_LEN) (out may be in). */
int seal_frame(struct seal *s, const uint8_t hdr[SEAL_HEADER_LEN],
    const uint8_t *in, size_t len, uint8_t *out);

/*
 * Open the sealed payload p[0..len) of the frame whose header is hdr, in
 * place: 0 with the plaintext in p[0..len - SEAL_TAG_LEN), or -1 with
 * *cause when it is shorter than a tag, or does not authenticate (changed,
 * replayed, reordered, or sealed with another key); the direction is then
 * spent (the caller closes the connection).
 */
int seal_open(struct seal *s, const uint8_t hdr[SEAL_HEADER_LEN], uint8_t *p,
    size_t len, char **cause);

#endif /* SEAL_H */
