/*
 * fuzz_auth.c: libFuzzer target for the handshake and the sealed-frame
 * opener (net/seal.h), what a server and a client read from a peer
 * before and after the keys are known.
 *
 * The first byte chooses what the rest is:
 *
 *  0  a client HELLO's payload: parsed as the server parses it
 *     (frame_parse_json(), seal_hello_offer() of its "auth"); an offer
 *     taken goes on through the transcript, the proofs and the keys;
 *  1  an AUTH frame's payload (seal_auth_parse());
 *  2  a byte stream a peer sends once the session is sealed: each whole
 *     frame is opened with seal_open() under a fixed key.  Nothing made
 *     without the key may open: an opened frame is a finding;
 *  3  payloads to seal, as u16-length records, each followed by a byte
 *     that picks a bit to flip (0xff: none): a frame sealed and changed in
 *     any bit must not open, and one unchanged must open to the same
 *     bytes, every frame in order on one direction.
 *
 * Every refusal must say why (a cause).  A finding aborts.
 *
 *	test/fuzz/fuzz_auth -max_len=65536 NEWDIR test/fuzz/auth
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "net/frame.h"
#include "net/seal.h"

#define FUZZ_AUTH_MAX 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fuzz_auth_key[SEAL_KEY_LEN] = { 0x6d, 0x61, 0x70, 0x6d,
	0x6f, 0x6e };
static const char fuzz_auth_server_hello[] =
    "{\"protocol\":1,\"auth\":"
    "{\"nonce\":\"UFFSU1RVVldYWVpbXF1eX2BhYmNkZWZnaGlqa2xtbm8=\","
    "\"cipher\":\"aes-256-gcm\"}}";

static void
fuzz_auth_hello(const uint8_t *p, size_t len)
{
	uint8_t nonce[SEAL_NONCE_LEN], th[SEAL_HASH_LEN], pr[SEAL_PROOF_LEN];
	uint8_t c2s[SEAL_KEY_LEN], s2c[SEAL_KEY_LEN];
	enum seal_cipher cipher;
	json_t *obj;
	char *cause = NULL;

	if ((obj = frame_parse_json(p, len, &cause)) == NULL) {
		if (cause == NULL || *cause == '\0')
			abort();
		free(cause);
		return;
	}
	if (seal_hello_offer(json_object_get(obj, "auth"), nonce, &cipher,
		&cause) != 0) {
		if (cause == NULL || *cause == '\0')
			abort();
		free(cause);
		json_decref(obj);
		return;
	}
	if (cipher != SEAL_AES_256_GCM && cipher != SEAL_CHACHA20_POLY1305)
		abort();
	seal_transcript(th, p, len, fuzz_auth_server_hello,
	    strlen(fuzz_auth_server_hello));
	seal_proof(pr, fuzz_auth_key, 0, th);
	seal_session_keys(fuzz_auth_key, th, c2s, s2c);
	json_decref(obj);
}

static void
fuzz_auth_proof(const uint8_t *p, size_t len)
{
	uint8_t proof[SEAL_PROOF_LEN];
	char *cause = NULL;

	if (seal_auth_parse(p, len, proof, &cause) == -1) {
		if (cause == NULL || *cause == '\0')
			abort();
		free(cause);
	}
}

/* A peer's frames, opened as they come: none may open. */
static void
fuzz_auth_stream(const uint8_t *p, size_t len)
{
	struct frame_header h;
	struct seal rx;
	uint8_t *copy;
	char *cause = NULL;
	size_t off = 0, n;
	int r;

	if (seal_init(&rx, SEAL_AES_256_GCM, fuzz_auth_key, 0) == -1)
		abort();
	while (off < len) {
		r = frame_decode_header(p + off, len - off,
		    FUZZ_AUTH_MAX + SEAL_TAG_LEN, &h, &cause);
		if (r != 1) {
			free(cause);
			break;
		}
		n = FRAME_HEADER_SIZE + h.len;
		copy = xmalloc(n);
		memcpy(copy, p + off, n);
		/* The direction is spent after the first: each on a fresh one. */
		rx.counter = 0;
		if (seal_open(&rx, copy, copy + FRAME_HEADER_SIZE, h.len,
			&cause) == 0)
			abort();
		if (cause == NULL || *cause == '\0')
			abort();
		free(cause);
		cause = NULL;
		free(copy);
		off += n;
	}
	seal_clear(&rx);
}

/* Frames sealed here, some changed by a bit: exactly the others open. */
static void
fuzz_auth_roundtrip(const uint8_t *p, size_t len)
{
	struct seal tx, rx;
	uint8_t *frame;
	char *cause = NULL;
	size_t off = 0, n, bit;
	int flip;

	if (seal_init(&tx, SEAL_CHACHA20_POLY1305, fuzz_auth_key, 1) == -1 ||
	    seal_init(&rx, SEAL_CHACHA20_POLY1305, fuzz_auth_key, 0) == -1)
		abort();
	while (len - off >= 3) {
		n = enc_get_be16(p + off);
		off += 2;
		if (n > len - off - 1)
			break;
		frame = xmalloc(FRAME_HEADER_SIZE + n + SEAL_TAG_LEN);
		frame_encode_header(frame, FRAME_REQUEST,
		    (uint32_t)(n + SEAL_TAG_LEN), off);
		if (seal_frame(&tx, frame, p + off, n,
			frame + FRAME_HEADER_SIZE) == -1)
			abort();
		flip = p[off + n] != 0xff;
		bit = (size_t)p[off + n] * 131 %
		    ((FRAME_HEADER_SIZE + n + SEAL_TAG_LEN) * 8);
		if (flip)
			frame[bit / 8] ^= (uint8_t)(1 << (bit % 8));
		if (seal_open(&rx, frame, frame + FRAME_HEADER_SIZE,
			n + SEAL_TAG_LEN, &cause) == 0) {
			if (flip ||
			    memcmp(frame + FRAME_HEADER_SIZE, p + off, n) != 0)
				abort();
		} else {
			free(cause);
			cause = NULL;
			if (!flip)
				abort();
			/* The direction is spent: start both over. */
			rx.counter = tx.counter;
		}
		free(frame);
		off += n + 1;
	}
	seal_clear(&tx);
	seal_clear(&rx);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0 || size > FUZZ_AUTH_MAX + 1)
		return 0;
	switch (data[0] & 3) {
	case 0:
		fuzz_auth_hello(data + 1, size - 1);
		break;
	case 1:
		fuzz_auth_proof(data + 1, size - 1);
		break;
	case 2:
		fuzz_auth_stream(data + 1, size - 1);
		break;
	default:
		fuzz_auth_roundtrip(data + 1, size - 1);
		break;
	}
	return 0;
}
