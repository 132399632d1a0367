/*
 * test_seal.c: the handshake's cryptography and sealed frames (net/seal.h):
 * the worked example of mapmon-protocol(7), read from the page itself and
 * recomputed, and what a sealed direction does with frames changed,
 * replayed, reordered, at the re-key and at its end.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common/b64.h"
#include "common/enc.h"
#include "common/mapmon.h"
#include "net/frame.h"
#include "net/seal.h"

/* The value of one label of the page's example, its lines concatenated. */
struct example {
	char *text; /* the lines of the example block */
};

static char *
example_load(void)
{
	const char *top = getenv("top_srcdir");
	char path[512], line[512], *all = xstrdup(""), *next;
	FILE *f;
	int in = 0;

	snprintf(path, sizeof path, "%s/man/mapmon-protocol.7",
	    top != NULL ? top : "..");
	f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, ".\\\" worked example begins", 25) == 0)
			in = 1;
		else if (strncmp(line, ".\\\" worked example ends", 23) == 0)
			in = 0;
		else if (in && line[0] != '.') {
			xasprintf(&next, "%s%s", all, line);
			free(all);
			all = next;
		}
	}
	fclose(f);
	cr_assert(*all != '\0', "no worked example in %s", path);
	return all;
}

/* The concatenated values of "label:" lines of text. */
static char *
example_get(const char *text, const char *label)
{
	char *out = xstrdup(""), *next, *copy = xstrdup(text), *line, *save;
	const char *v;
	size_t n = strlen(label);

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, label, n) != 0 || line[n] != ':')
			continue;
		for (v = line + n + 1; *v == ' ' || *v == '\t'; v++)
			;
		xasprintf(&next, "%s%s", out, v);
		free(out);
		out = next;
	}
	free(copy);
	cr_assert(*out != '\0', "no '%s:' in the worked example", label);
	return out;
}

static char *
hex(const uint8_t *p, size_t n)
{
	char *s = xmalloc(2 * n + 1);
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", p[i]);
	return s;
}

static void
expect_hex(const char *ex, const char *label, const uint8_t *p, size_t n)
{
	char *want = example_get(ex, label), *got = hex(p, n);

	cr_expect_str_eq(got, want, "%s: the code gives %s, the page %s", label,
	    got, want);
	free(want);
	free(got);
}

Test(seal, the_worked_example_of_the_protocol_page)
{
	char *ex = example_load(), *chello, *shello, *s, *want;
	uint8_t key[SEAL_KEY_LEN], th[SEAL_HASH_LEN], pr[SEAL_PROOF_LEN];
	uint8_t c2s[SEAL_KEY_LEN], s2c[SEAL_KEY_LEN], frame[256];
	uint8_t hdr[FRAME_HEADER_SIZE];
	struct seal tx;
	char *req, *b64, *cause = NULL;
	size_t i, n;

	for (i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)i;
	b64 = b64_encode(key, sizeof key);
	want = example_get(ex, "key b64");
	cr_expect_str_eq(b64, want);
	free(b64);
	free(want);
	chello = example_get(ex, "client hello");
	shello = example_get(ex, "server hello");
	/* The nonces the page says. */
	cr_expect(strstr(chello, "oKGio6Sl") != NULL);
	cr_assert_eq(b64_decode_exact("oKGio6SlpqeoqaqrrK2ur7CxsrO0tba3uLm6u7y9"
				      "vr8=",
			 frame, 32, &cause),
	    0);
	for (i = 0; i < 32; i++)
		cr_expect_eq(frame[i], 0xa0 + i);

	seal_transcript(th, chello, strlen(chello), shello, strlen(shello));
	expect_hex(ex, "TH", th, sizeof th);
	seal_proof(pr, key, 0, th);
	expect_hex(ex, "client proof", pr, sizeof pr);
	b64 = b64_encode(pr, sizeof pr);
	xasprintf(&s, "{\"proof\":\"%s\"}", b64);
	want = example_get(ex, "client AUTH");
	cr_expect_str_eq(s, want);
	free(want);
	free(s);
	free(b64);
	seal_proof(pr, key, 1, th);
	expect_hex(ex, "server proof", pr, sizeof pr);
	b64 = b64_encode(pr, sizeof pr);
	xasprintf(&s, "{\"proof\":\"%s\"}", b64);
	want = example_get(ex, "server AUTH");
	cr_expect_str_eq(s, want);
	free(want);
	free(s);
	free(b64);
	seal_session_keys(key, th, c2s, s2c);
	expect_hex(ex, "K_c2s", c2s, sizeof c2s);
	expect_hex(ex, "K_s2c", s2c, sizeof s2c);

	req = example_get(ex, "request");
	n = strlen(req);
	frame_encode_header(hdr, FRAME_REQUEST, (uint32_t)(n + SEAL_TAG_LEN),
	    1);
	memcpy(frame, hdr, sizeof hdr);
	cr_assert_eq(seal_init(&tx, SEAL_AES_256_GCM, c2s, 1), 0);
	cr_assert_eq(
	    seal_frame(&tx, hdr, (uint8_t *)req, n, frame + sizeof hdr), 0);
	expect_hex(ex, "sealed", frame, sizeof hdr + n + SEAL_TAG_LEN);
	seal_clear(&tx);
	cr_assert_eq(seal_init(&tx, SEAL_CHACHA20_POLY1305, c2s, 1), 0);
	cr_assert_eq(
	    seal_frame(&tx, hdr, (uint8_t *)req, n, frame + sizeof hdr), 0);
	expect_hex(ex, "chacha20", frame, sizeof hdr + n + SEAL_TAG_LEN);
	seal_clear(&tx);

	/* The key from the 2^32-th frame on. */
	cr_assert_eq(seal_init(&tx, SEAL_AES_256_GCM, c2s, 1), 0);
	tx.counter = SEAL_REKEY_FRAMES;
	cr_assert_eq(
	    seal_frame(&tx, hdr, (uint8_t *)req, n, frame + sizeof hdr), 0);
	expect_hex(ex, "K_c2s rekeyed", tx.key, sizeof tx.key);
	seal_clear(&tx);
	free(req);
	free(chello);
	free(shello);
	free(ex);
}

/* A pair of ends of one direction, with the example's key. */
static void
pair(struct seal *tx, struct seal *rx, enum seal_cipher c)
{
	uint8_t key[SEAL_KEY_LEN];
	size_t i;

	for (i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)(0x40 + i);
	cr_assert_eq(seal_init(tx, c, key, 1), 0);
	cr_assert_eq(seal_init(rx, c, key, 0), 0);
}

/* Seal text as frame id into out (header and sealed payload); its size. */
static size_t
seal_text(struct seal *tx, uint64_t id, const char *text, uint8_t *out)
{
	size_t n = strlen(text);

	frame_encode_header(out, FRAME_REQUEST, (uint32_t)(n + SEAL_TAG_LEN),
	    id);
	cr_assert_eq(seal_frame(tx, out, (const uint8_t *)text, n,
			 out + FRAME_HEADER_SIZE),
	    0);
	return FRAME_HEADER_SIZE + n + SEAL_TAG_LEN;
}

/* Open a copy of frame[0..len); 0 when it opens as text. */
static int
open_copy(struct seal *rx, const uint8_t *frame, size_t len, const char *text)
{
	uint8_t buf[512];
	char *cause = NULL;
	int rc;

	memcpy(buf, frame, len);
	rc = seal_open(rx, buf, buf + FRAME_HEADER_SIZE,
	    len - FRAME_HEADER_SIZE, &cause);
	if (rc == 0)
		cr_expect_eq(
		    memcmp(buf + FRAME_HEADER_SIZE, text, strlen(text)), 0);
	else
		cr_expect(strstr(cause, "does not authenticate") != NULL ||
			strstr(cause, "shorter than its") != NULL,
		    "%s", cause);
	free(cause);
	return rc;
}

Test(seal, frames_open_in_order_under_both_ciphers)
{
	enum seal_cipher c[] = { SEAL_AES_256_GCM, SEAL_CHACHA20_POLY1305 };
	struct seal tx, rx;
	uint8_t f1[128], f2[128];
	size_t i, n1, n2;

	for (i = 0; i < nitems(c); i++) {
		pair(&tx, &rx, c[i]);
		n1 = seal_text(&tx, 1, "{\"prefix\":\"status\"}", f1);
		n2 = seal_text(&tx, 2, "", f2);
		cr_expect_eq(open_copy(&rx, f1, n1, "{\"prefix\":\"status\"}"),
		    0, "%s", seal_cipher_name(c[i]));
		cr_expect_eq(open_copy(&rx, f2, n2, ""), 0);
		cr_expect_eq(rx.counter, 2);
		seal_clear(&tx);
		seal_clear(&rx);
	}
}

Test(seal, a_changed_replayed_or_reordered_frame_does_not_open)
{
	struct seal tx, rx;
	uint8_t f1[128], f2[128], bad[128];
	size_t n1, n2, bit;

	/* Every bit of the frame, header and tag included, matters. */
	pair(&tx, &rx, SEAL_AES_256_GCM);
	n1 = seal_text(&tx, 7, "{\"prefix\":\"osd out\",\"ids\":[3]}", f1);
	seal_clear(&tx);
	for (bit = 0; bit < n1 * 8; bit++) {
		memcpy(bad, f1, n1);
		bad[bit / 8] ^= (uint8_t)(1 << (bit % 8));
		rx.counter = 0;
		cr_assert_eq(open_copy(&rx, bad, n1, ""), -1, "bit %zu", bit);
	}
	seal_clear(&rx);

	/* Replayed: the second copy is frame 1, sealed as frame 0. */
	pair(&tx, &rx, SEAL_AES_256_GCM);
	n1 = seal_text(&tx, 1, "{\"prefix\":\"osd out\",\"ids\":[3]}", f1);
	n2 = seal_text(&tx, 2, "{\"prefix\":\"status\"}", f2);
	cr_expect_eq(open_copy(&rx, f1, n1,
			 "{\"prefix\":\"osd out\","
			 "\"ids\":[3]}"),
	    0);
	cr_expect_eq(open_copy(&rx, f1, n1, ""), -1);
	/* And the direction is spent: not even the right frame opens now. */
	cr_expect_eq(open_copy(&rx, f2, n2, ""), -1);
	seal_clear(&tx);
	seal_clear(&rx);

	/* Reordered. */
	pair(&tx, &rx, SEAL_CHACHA20_POLY1305);
	n1 = seal_text(&tx, 1, "a", f1);
	n2 = seal_text(&tx, 2, "b", f2);
	cr_expect_eq(open_copy(&rx, f2, n2, ""), -1);
	seal_clear(&tx);
	seal_clear(&rx);

	/* Shorter than a tag. */
	pair(&tx, &rx, SEAL_AES_256_GCM);
	frame_encode_header(bad, FRAME_REQUEST, 3, 1);
	cr_expect_eq(open_copy(&rx, bad, FRAME_HEADER_SIZE + 3, ""), -1);
	seal_clear(&tx);
	seal_clear(&rx);
	(void)n1;
}

Test(seal, the_key_is_replaced_at_every_2_to_the_32_frames)
{
	struct seal tx, rx;
	uint8_t f[128], k0[SEAL_KEY_LEN];
	char text[32];
	int i;

	pair(&tx, &rx, SEAL_AES_256_GCM);
	memcpy(k0, tx.key, sizeof k0);
	tx.counter = rx.counter = SEAL_REKEY_FRAMES - 2;
	for (i = 0; i < 4; i++) {
		snprintf(text, sizeof text, "{\"n\":%d}", i);
		cr_assert_eq(open_copy(&rx, f,
				 seal_text(&tx, (uint64_t)i, text, f), text),
		    0, "frame %d across the re-key", i);
	}
	cr_expect_neq(memcmp(tx.key, k0, sizeof k0), 0, "the key changed");
	cr_expect_eq(memcmp(tx.key, rx.key, sizeof k0), 0);
	/* A receiver that did not re-key cannot open what follows. */
	memcpy(rx.key, k0, sizeof k0);
	seal_clear(&rx);
	cr_assert_eq(seal_init(&rx, SEAL_AES_256_GCM, k0, 0), 0);
	rx.counter = SEAL_REKEY_FRAMES + 2;
	cr_expect_eq(open_copy(&rx, f, seal_text(&tx, 9, "x", f), "x"), -1);
	seal_clear(&tx);
	seal_clear(&rx);
}

Test(seal, a_direction_ends_before_a_nonce_could_repeat)
{
	struct seal tx, rx;
	uint8_t hdr[FRAME_HEADER_SIZE], out[64];

	pair(&tx, &rx, SEAL_AES_256_GCM);
	frame_encode_header(hdr, FRAME_REQUEST, SEAL_TAG_LEN + 1, 1);
	tx.counter = SEAL_MAX_FRAMES - 1;
	cr_expect_eq(seal_frame(&tx, hdr, (const uint8_t *)"x", 1, out), 0);
	cr_expect_eq(seal_frame(&tx, hdr, (const uint8_t *)"x", 1, out), -1);
	cr_expect_eq(seal_begin(&tx, hdr), -1);
	seal_clear(&tx);
	seal_clear(&rx);
}

Test(seal, sealing_in_pieces_is_sealing_at_once)
{
	struct seal a, b, rx;
	uint8_t hdr[FRAME_HEADER_SIZE], whole[300], pieces[300], text[256];
	size_t i;

	for (i = 0; i < sizeof text; i++)
		text[i] = (uint8_t)i;
	pair(&a, &rx, SEAL_AES_256_GCM);
	seal_clear(&rx);
	pair(&b, &rx, SEAL_AES_256_GCM);
	frame_encode_header(hdr, FRAME_REPLY, sizeof text + SEAL_TAG_LEN, 5);
	cr_assert_eq(seal_frame(&a, hdr, text, sizeof text, whole), 0);
	cr_assert_eq(seal_begin(&b, hdr), 0);
	cr_assert_eq(seal_update(&b, text, 1, pieces), 0);
	cr_assert_eq(seal_update(&b, text + 1, 100, pieces + 1), 0);
	cr_assert_eq(
	    seal_update(&b, text + 101, sizeof text - 101, pieces + 101), 0);
	cr_assert_eq(seal_end(&b, pieces + sizeof text), 0);
	cr_expect_eq(memcmp(whole, pieces, sizeof text + SEAL_TAG_LEN), 0);
	seal_clear(&a);
	seal_clear(&b);
	seal_clear(&rx);
}

Test(seal, cipher_names_and_proofs)
{
	enum seal_cipher c;
	uint8_t k1[SEAL_KEY_LEN] = { 1 }, k2[SEAL_KEY_LEN] = { 2 };
	uint8_t th[SEAL_HASH_LEN] = { 0 }, p1[SEAL_PROOF_LEN];
	uint8_t p2[SEAL_PROOF_LEN], p3[SEAL_PROOF_LEN];

	cr_expect_eq(seal_cipher_find("chacha20-poly1305", &c), 0);
	cr_expect_eq(c, SEAL_CHACHA20_POLY1305);
	cr_expect_str_eq(seal_cipher_name(SEAL_AES_256_GCM), "aes-256-gcm");
	cr_expect_eq(seal_cipher_find("aes-128-gcm", &c), -1);
	seal_proof(p1, k1, 0, th);
	seal_proof(p2, k1, 1, th);
	seal_proof(p3, k2, 0, th);
	/* The two sides' proofs differ, and so do two keys'. */
	cr_expect(!seal_proof_equal(p1, p2));
	cr_expect(!seal_proof_equal(p1, p3));
	seal_proof(p2, k1, 0, th);
	cr_expect(seal_proof_equal(p1, p2));
}
