/*
 * enc.h: fixed-width big-endian encoding and a bounds-checked decoder.
 *
 * Keys use big-endian numbers so that byte order is numeric order.  Records
 * are written with struct enc_buf (grows with xrealloc) and read with struct
 * enc_reader, whose every get checks the remaining length first: a short or
 * overlong record sets `failed` and later gets return zeros, so a decoder
 * reads all fields and checks `enc_reader_ok()` once at the end, never
 * touching memory past the record.
 */
#ifndef ENC_H
#define ENC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"

static inline void
enc_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
enc_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
enc_put_be64(uint8_t *p, uint64_t v)
{
	enc_put_be32(p, (uint32_t)(v >> 32));
	enc_put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t
enc_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t
enc_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
enc_get_be64(const uint8_t *p)
{
	return (uint64_t)enc_get_be32(p) << 32 | enc_get_be32(p + 4);
}

/*
 * Varints: an unsigned value in 7-bit groups, least significant first, the
 * top bit of each byte set when another follows (1 byte below 128, at most
 * 10).  Signed values go through zigzag first (0, -1, 1, -2 ... as 0, 1,
 * 2, 3 ...), so that small magnitudes of either sign stay short.
 */
#define ENC_VARINT_MAX 10

static inline size_t
enc_varint_size(uint64_t v)
{
	return (size_t)(64 - __builtin_clzll(v | 1) + 6) / 7;
}

/* Writes v at p (room for enc_varint_size(v) bytes); returns the end. */
static inline uint8_t *
enc_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t
enc_zigzag(int64_t v)
{
	return (uint64_t)v << 1 ^ (0 - ((uint64_t)v >> 63));
}

static inline int64_t
enc_unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1 ^ (0 - (u & 1)));
}

/* A growing output buffer.  Zero-initialise, then enc_buf_* appends. */
struct enc_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

static inline uint8_t *
enc_buf_reserve(struct enc_buf *b, size_t n)
{
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap - b->len < n)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	return b->data + b->len;
}

static inline void
enc_buf_put_u8(struct enc_buf *b, uint8_t v)
{
	*enc_buf_reserve(b, 1) = v;
	b->len += 1;
}

static inline void
enc_buf_put_u16(struct enc_buf *b, uint16_t v)
{
	enc_put_be16(enc_buf_reserve(b, 2), v);
	b->len += 2;
}

static inline void
enc_buf_put_u32(struct enc_buf *b, uint32_t v)
{
	enc_put_be32(enc_buf_reserve(b, 4), v);
	b->len += 4;
}

static inline void
enc_buf_put_u64(struct enc_buf *b, uint64_t v)
{
	enc_put_be64(enc_buf_reserve(b, 8), v);
	b->len += 8;
}

static inline void
enc_buf_put_bytes(struct enc_buf *b, const void *p, size_t n)
{
	if (n > 0)
		memcpy(enc_buf_reserve(b, n), p, n);
	b->len += n;
}

/* A string as a u16 length and its bytes (no NUL); longer ones are cut. */
static inline void
enc_buf_put_str(struct enc_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > UINT16_MAX)
		n = UINT16_MAX;
	enc_buf_put_u16(b, (uint16_t)n);
	enc_buf_put_bytes(b, s, n);
}

static inline void
enc_buf_reset(struct enc_buf *b)
{
	b->len = 0;
}

static inline void
enc_buf_free(struct enc_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* A bounds-checked reader over one record. */
struct enc_reader {
	const uint8_t *p;
	size_t left;
	int failed;
};

static inline void
enc_reader_init(struct enc_reader *r, const void *p, size_t len)
{
	r->p = p;
	r->left = len;
	r->failed = 0;
}

static inline const uint8_t *
enc_reader_take(struct enc_reader *r, size_t n)
{
	const uint8_t *p;

	if (r->failed || r->left < n) {
		r->failed = 1;
		return NULL;
	}
	p = r->p;
	r->p += n;
	r->left -= n;
	return p;
}

static inline uint8_t
enc_get_u8(struct enc_reader *r)
{
	const uint8_t *p = enc_reader_take(r, 1);

	return p ? p[0] : 0;
}

static inline uint16_t
enc_get_u16(struct enc_reader *r)
{
	const uint8_t *p = enc_reader_take(r, 2);

	return p ? enc_get_be16(p) : 0;
}

static inline uint32_t
enc_get_u32(struct enc_reader *r)
{
	const uint8_t *p = enc_reader_take(r, 4);

	return p ? enc_get_be32(p) : 0;
}

static inline uint64_t
enc_get_u64(struct enc_reader *r)
{
	const uint8_t *p = enc_reader_take(r, 8);

	return p ? enc_get_be64(p) : 0;
}

/*
 * One varint at p, before end, into *v: returns the byte after it, or NULL
 * when end cuts it (*too_long 0) or it runs past 10 bytes or 64 bits
 * (*too_long 1).
 */
static inline const uint8_t *
enc_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v, int *too_long)
{
	uint64_t x = 0;
	unsigned shift;
	uint8_t c;

	*too_long = 0;
	for (shift = 0; p < end; shift += 7) {
		c = *p++;
		if (shift == 63 && c > 1) { /* past bit 63, or an 11th byte */
			*too_long = 1;
			return NULL;
		}
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

/*
 * One varint of r into *v.  Returns 0; -1 when r ends inside it, -2 when
 * it is too long (r failed both times, *v 0).
 */
static inline int
enc_get_varint(struct enc_reader *r, uint64_t *v)
{
	const uint8_t *q = NULL;
	int too_long = 0;

	*v = 0;
	if (!r->failed)
		q = enc_varint_get(r->p, r->p + r->left, v, &too_long);
	if (q == NULL) {
		r->failed = 1;
		*v = 0;
		return too_long ? -2 : -1;
	}
	r->left -= (size_t)(q - r->p);
	r->p = q;
	return 0;
}

/*
 * A u16-length string copied into a new NUL-terminated allocation the caller
 * frees; NULL (and failed) when the record is short or the string holds a
 * NUL byte.
 */
static inline char *
enc_get_str(struct enc_reader *r)
{
	uint16_t n = enc_get_u16(r);
	const uint8_t *p = enc_reader_take(r, n);

	if (p == NULL)
		return NULL;
	if (memchr(p, '\0', n) != NULL) {
		r->failed = 1;
		return NULL;
	}
	return xstrndup((const char *)p, n);
}

/* True when every get succeeded and the whole record was consumed. */
static inline int
enc_reader_ok(const struct enc_reader *r)
{
	return !r->failed && r->left == 0;
}

/*
 * Versioned records, as Ceph's ENCODE_START/DECODE_START: u8 struct_v (the
 * version written), u8 compat_v (the oldest reader that understands it), u32
 * body length, body.  A reader refuses a compat_v newer than it knows and
 * skips body bytes a newer struct_v appended.
 */
static inline size_t
enc_buf_record_begin(struct enc_buf *b, uint8_t struct_v, uint8_t compat_v)
{
	enc_buf_put_u8(b, struct_v);
	enc_buf_put_u8(b, compat_v);
	enc_buf_put_u32(b, 0);
	return b->len;
}

static inline void
enc_buf_record_end(struct enc_buf *b, size_t body_start)
{
	enc_put_be32(b->data + body_start - 4, (uint32_t)(b->len - body_start));
}

/*
 * Open one record of r into *body (r moves past it).  Returns its struct_v,
 * or -1 with *why set to a static reason when the record is short or its
 * compat_v is newer than known_v.
 */
static inline int
enc_reader_record(struct enc_reader *r, uint8_t known_v, struct enc_reader *body,
    const char **why)
{
	uint8_t struct_v, compat_v;
	uint32_t len;
	const uint8_t *p;

	struct_v = enc_get_u8(r);
	compat_v = enc_get_u8(r);
	len = enc_get_u32(r);
	if (r->failed) {
		*why = "record header truncated";
		return -1;
	}
	if (compat_v > known_v) {
		*why = "record needs a newer mapmon (compat version too new)";
		return -1;
	}
	if ((p = enc_reader_take(r, len)) == NULL) {
		*why = "record body length past the end of the value";
		return -1;
	}
	enc_reader_init(body, p, len);
	return struct_v;
}

/* The body was read: fine when nothing failed (trailing bytes allowed). */
static inline int
enc_reader_body_ok(const struct enc_reader *r)
{
	return !r->failed;
}

#endif /* ENC_H */
