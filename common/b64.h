/*
 * b64.h: base64 (RFC 4648, with padding, no line breaks) through OpenSSL's
 * EVP_EncodeBlock() and EVP_DecodeBlock(), for keys in keyrings, in
 * replies and in the handshake.
 */
#ifndef B64_H
#define B64_H

#include <stddef.h>
#include <stdint.h>

/* The text length of n bytes, without the NUL. */
#define B64_LEN(n) ((((n) + 2) / 3) * 4)

/* The base64 text of p[0..len), NUL-terminated; the caller frees it. */
char *b64_encode(const void *p, size_t len);

/*
 * Decode the base64 text s, which must decode to exactly want bytes, into
 * out[0..want).  Returns 0, or -1 with *cause (the caller frees it) saying
 * what is wrong: a character that is not base64, a length that is not a
 * multiple of 4, misplaced padding, or the number of bytes it holds when
 * that is not want.  Leading and trailing blanks are not accepted: the
 * caller trims.
 */
int b64_decode_exact(const char *s, uint8_t *out, size_t want, char **cause);

#endif /* B64_H */
