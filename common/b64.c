/* b64.c: base64 through OpenSSL's block coder. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "common/b64.h"
#include "common/mapmon.h"

char *
b64_encode(const void *p, size_t len)
{
	char *s = xmalloc(B64_LEN(len) + 1);

	/* EVP_EncodeBlock() takes an int: keys and nonces are tiny. */
	if (len > (size_t)(INT32_MAX / 4 * 3))
		len = INT32_MAX / 4 * 3;
	EVP_EncodeBlock((unsigned char *)s, p, (int)len);
	return s;
}

static int
b64_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '+' || c == '/';
}

int
b64_decode_exact(const char *s, uint8_t *out, size_t want, char **cause)
{
	size_t len = strlen(s), i, pad = 0, n;
	unsigned char *buf;
	int got;

	for (i = 0; i < len; i++) {
		if (s[i] == '=') {
			/* Padding: one or two, at the very end only. */
			pad = len - i;
			if (pad > 2 || (pad == 2 && s[i + 1] != '=')) {
				xasprintf(cause,
				    "bad base64: '=' at position "
				    "%zu is not final padding",
				    i + 1);
				return -1;
			}
			break;
		}
		if (!b64_char((unsigned char)s[i])) {
			xasprintf(cause,
			    "bad base64: '%c' at position %zu is "
			    "not a base64 character",
			    s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?', i + 1);
			return -1;
		}
	}
	if (len == 0 || len % 4 != 0) {
		xasprintf(cause,
		    "bad base64: %zu characters, not a multiple "
		    "of 4",
		    len);
		return -1;
	}
	n = len / 4 * 3 - pad;
	if (n != want) {
		xasprintf(cause, "base64 of %zu bytes, not %zu", n, want);
		return -1;
	}
	buf = xmalloc(len / 4 * 3 + 1);
	got = EVP_DecodeBlock(buf, (const unsigned char *)s, (int)len);
	if (got < 0 || (size_t)got != len / 4 * 3) {
		free(buf);
		xasprintf(cause, "bad base64");
		return -1;
	}
	memcpy(out, buf, want);
	OPENSSL_cleanse(buf, (size_t)got);
	free(buf);
	return 0;
}
