/* seal.c: the handshake's cryptography and sealed frames (see seal.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <pthread.h>

#include "common/b64.h"
#include "common/enc.h"
#include "common/log.h"
#include "common/mapmon.h"
#include "net/frame.h"
#include "net/seal.h"

static const char *const seal_names[SEAL_NCIPHERS] = {
	[SEAL_AES_256_GCM] = "aes-256-gcm",
	[SEAL_CHACHA20_POLY1305] = "chacha20-poly1305",
};

const char *
seal_cipher_name(enum seal_cipher c)
{
	return (unsigned)c < SEAL_NCIPHERS ? seal_names[c] : "unknown";
}

int
seal_cipher_find(const char *name, enum seal_cipher *out)
{
	int i;

	for (i = 0; i < SEAL_NCIPHERS; i++) {
		if (strcmp(name, seal_names[i]) == 0) {
			*out = (enum seal_cipher)i;
			return 0;
		}
	}
	return -1;
}

static const EVP_CIPHER *
seal_evp(enum seal_cipher c)
{
	return c == SEAL_CHACHA20_POLY1305 ? EVP_chacha20_poly1305() :
					     EVP_aes_256_gcm();
}

void
seal_transcript(uint8_t th[SEAL_HASH_LEN], const void *client_hello,
    size_t clen, const void *server_hello, size_t slen)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint8_t len[4];
	unsigned int n = 0;

	if (md == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(md, SEAL_TRANSCRIPT_LABEL,
		strlen(SEAL_TRANSCRIPT_LABEL)) != 1)
		fatalx("SHA-256 of the transcript: OpenSSL failed");
	enc_put_be32(len, (uint32_t)clen);
	EVP_DigestUpdate(md, len, sizeof len);
	EVP_DigestUpdate(md, client_hello, clen);
	enc_put_be32(len, (uint32_t)slen);
	EVP_DigestUpdate(md, len, sizeof len);
	EVP_DigestUpdate(md, server_hello, slen);
	if (EVP_DigestFinal_ex(md, th, &n) != 1 || n != SEAL_HASH_LEN)
		fatalx("SHA-256 of the transcript: OpenSSL failed");
	EVP_MD_CTX_free(md);
}

void
seal_proof(uint8_t out[SEAL_PROOF_LEN], const uint8_t key[SEAL_KEY_LEN],
    int server, const uint8_t th[SEAL_HASH_LEN])
{
	const char *label = server ? "mapmon server proof" :
				     "mapmon client proof";
	uint8_t msg[32 + SEAL_HASH_LEN];
	size_t llen = strlen(label);
	unsigned int n = 0;

	memcpy(msg, label, llen);
	memcpy(msg + llen, th, SEAL_HASH_LEN);
	if (HMAC(EVP_sha256(), key, SEAL_KEY_LEN, msg, llen + SEAL_HASH_LEN,
		out, &n) == NULL ||
	    n != SEAL_PROOF_LEN)
		fatalx("HMAC-SHA256: OpenSSL failed");
}

int
seal_proof_equal(const uint8_t *a, const uint8_t *b)
{
	return CRYPTO_memcmp(a, b, SEAL_PROOF_LEN) == 0;
}

/*
 * OpenSSL's HKDF, fetched once: a fetch by name per derivation cost some
 * 35 us of a handshake's cryptography (BENCHMARKS.md, "Authentication").
 */
static EVP_KDF *seal_kdf;
static pthread_once_t seal_kdf_once = PTHREAD_ONCE_INIT;

static void
seal_kdf_fetch(void)
{
	seal_kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
}

/* HKDF-SHA256 of 32 bytes; salt may be NULL (none). */
static int
seal_hkdf(const uint8_t *ikm, const uint8_t *salt, size_t saltlen,
    const char *info, uint8_t out[SEAL_KEY_LEN])
{
	EVP_KDF_CTX *k;
	OSSL_PARAM p[5], *q = p;
	int ok;

	pthread_once(&seal_kdf_once, seal_kdf_fetch);
	if (seal_kdf == NULL || (k = EVP_KDF_CTX_new(seal_kdf)) == NULL)
		return -1;
	*q++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
	    (char *)"SHA256", 0);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
	    (void *)ikm, SEAL_KEY_LEN);
	if (salt != NULL)
		*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
		    (void *)salt, saltlen);
	*q++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO,
	    (void *)info, strlen(info));
	*q = OSSL_PARAM_construct_end();
	ok = EVP_KDF_derive(k, out, SEAL_KEY_LEN, p) == 1;
	EVP_KDF_CTX_free(k);
	return ok ? 0 : -1;
}

void
seal_session_keys(const uint8_t key[SEAL_KEY_LEN],
    const uint8_t th[SEAL_HASH_LEN], uint8_t c2s[SEAL_KEY_LEN],
    uint8_t s2c[SEAL_KEY_LEN])
{
	if (seal_hkdf(key, th, SEAL_HASH_LEN, "mapmon c2s", c2s) == -1 ||
	    seal_hkdf(key, th, SEAL_HASH_LEN, "mapmon s2c", s2c) == -1)
		fatalx("HKDF-SHA256: OpenSSL failed");
}

int
seal_hello_offer(const json_t *auth, uint8_t nonce[SEAL_NONCE_LEN],
    enum seal_cipher *cipher, char **cause)
{
	const char *b64;
	json_t *ciphers, *v;
	char *why = NULL;
	size_t i;

	b64 = json_string_value(json_object_get(auth, "nonce"));
	ciphers = json_object_get(auth, "ciphers");
	if (!json_is_object(auth) || b64 == NULL || !json_is_array(ciphers)) {
		xasprintf(cause,
		    "\"auth\" must be an object with a \"nonce\" "
		    "string and a \"ciphers\" array");
		return -EINVAL;
	}
	if (b64_decode_exact(b64, nonce, SEAL_NONCE_LEN, &why) == -1) {
		xasprintf(cause, "auth nonce: %s", why);
		free(why);
		return -EINVAL;
	}
	/* The client's order of preference. */
	json_array_foreach(ciphers, i, v) {
		if (json_is_string(v) &&
		    seal_cipher_find(json_string_value(v), cipher) == 0)
			return 0;
	}
	xasprintf(cause, "no cipher in common: the server has %s and %s",
	    seal_cipher_name(SEAL_AES_256_GCM),
	    seal_cipher_name(SEAL_CHACHA20_POLY1305));
	return -EPROTONOSUPPORT;
}

int
seal_auth_parse(const void *p, size_t len, uint8_t proof[SEAL_PROOF_LEN],
    char **cause)
{
	json_t *obj;
	const char *b64;
	char *why = NULL;

	if ((obj = frame_parse_json(p, len, &why)) == NULL) {
		*cause = why;
		return -1;
	}
	if ((b64 = json_string_value(json_object_get(obj, "proof"))) == NULL) {
		json_decref(obj);
		xasprintf(cause, "no \"proof\" string");
		return -1;
	}
	if (b64_decode_exact(b64, proof, SEAL_PROOF_LEN, &why) == -1) {
		json_decref(obj);
		xasprintf(cause, "proof: %s", why);
		free(why);
		return -1;
	}
	json_decref(obj);
	return 0;
}

int
seal_random(void *p, size_t n)
{
	return RAND_bytes(p, (int)n) == 1 ? 0 : -1;
}

int
seal_init(struct seal *s, enum seal_cipher cipher, const uint8_t *key,
    int encrypt)
{
	memset(s, 0, sizeof *s);
	s->cipher = cipher;
	s->encrypt = encrypt;
	memcpy(s->key, key, SEAL_KEY_LEN);
	if ((s->ctx = EVP_CIPHER_CTX_new()) == NULL ||
	    EVP_CipherInit_ex(s->ctx, seal_evp(cipher), NULL, s->key, NULL,
		encrypt) != 1) {
		seal_clear(s);
		return -1;
	}
	return 0;
}

void
seal_clear(struct seal *s)
{
	EVP_CIPHER_CTX_free(s->ctx);
	OPENSSL_cleanse(s, sizeof *s);
}

/*
 * The nonce of the next frame; at a multiple of SEAL_REKEY_FRAMES the key
 * is replaced first.  -1 past SEAL_MAX_FRAMES or when OpenSSL fails.
 */
static int
seal_next(struct seal *s)
{
	uint8_t iv[SEAL_IV_LEN] = { 0 }, next[SEAL_KEY_LEN];

	if (s->ctx == NULL || s->counter >= SEAL_MAX_FRAMES)
		return -1;
	if (s->counter > 0 && s->counter % SEAL_REKEY_FRAMES == 0) {
		if (seal_hkdf(s->key, NULL, 0, "mapmon rekey", next) == -1)
			return -1;
		memcpy(s->key, next, SEAL_KEY_LEN);
		OPENSSL_cleanse(next, sizeof next);
		if (EVP_CipherInit_ex(s->ctx, NULL, NULL, s->key, NULL,
			s->encrypt) != 1)
			return -1;
	}
	enc_put_be64(iv + 4, s->counter);
	s->counter++;
	return EVP_CipherInit_ex(s->ctx, NULL, NULL, NULL, iv, s->encrypt) ==
		1 ?
	    0 :
	    -1;
}

int
seal_begin(struct seal *s, const uint8_t hdr[SEAL_HEADER_LEN])
{
	int n;

	if (seal_next(s) == -1)
		return -1;
	return EVP_EncryptUpdate(s->ctx, NULL, &n, hdr, SEAL_HEADER_LEN) == 1 ?
	    0 :
	    -1;
}

int
seal_update(struct seal *s, const uint8_t *in, size_t len, uint8_t *out)
{
	int n;

	/* OpenSSL takes ints: a frame's payload is below 4 GiB, in pieces. */
	while (len > 0) {
		int chunk = len > (1 << 30) ? 1 << 30 : (int)len;

		if (EVP_EncryptUpdate(s->ctx, out, &n, in, chunk) != 1 ||
		    n != chunk)
			return -1;
		in += chunk;
		out += chunk;
		len -= (size_t)chunk;
	}
	return 0;
}

int
seal_end(struct seal *s, uint8_t tag[SEAL_TAG_LEN])
{
	uint8_t none[16];
	int n;

	if (EVP_EncryptFinal_ex(s->ctx, none, &n) != 1 || n != 0)
		return -1;
	return EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_GET_TAG, SEAL_TAG_LEN,
		   tag) == 1 ?
	    0 :
	    -1;
}

int
seal_frame(struct seal *s, const uint8_t hdr[SEAL_HEADER_LEN],
    const uint8_t *in, size_t len, uint8_t *out)
{
	if (seal_begin(s, hdr) == -1 || seal_update(s, in, len, out) == -1)
		return -1;
	return seal_end(s, out + len);
}

int
seal_open(struct seal *s, const uint8_t hdr[SEAL_HEADER_LEN], uint8_t *p,
    size_t len, char **cause)
{
	uint8_t none[16];
	size_t left;
	uint8_t *q = p;
	int n;

	if (len < SEAL_TAG_LEN) {
		xasprintf(cause,
		    "a sealed frame of %zu bytes, shorter than "
		    "its %d-byte tag",
		    len, SEAL_TAG_LEN);
		return -1;
	}
	if (seal_next(s) == -1 ||
	    EVP_DecryptUpdate(s->ctx, NULL, &n, hdr, SEAL_HEADER_LEN) != 1)
		goto bad;
	for (left = len - SEAL_TAG_LEN; left > 0;) {
		int chunk = left > (1 << 30) ? 1 << 30 : (int)left;

		if (EVP_DecryptUpdate(s->ctx, q, &n, q, chunk) != 1)
			goto bad;
		q += chunk;
		left -= (size_t)chunk;
	}
	if (EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_SET_TAG, SEAL_TAG_LEN,
		p + len - SEAL_TAG_LEN) != 1 ||
	    EVP_DecryptFinal_ex(s->ctx, none, &n) <= 0)
		goto bad;
	return 0;
bad:
	/* Spent: nothing after a forged frame opens on this direction. */
	s->counter = SEAL_MAX_FRAMES;
	xasprintf(cause,
	    "a sealed frame that does not authenticate "
	    "(changed, replayed or out of order)");
	return -1;
}
