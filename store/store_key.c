/* store_key.c: key text, key building and versioned records. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "store/store.h"

char *
store_key_escape(const void *key, size_t klen)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = key;
	char *out, *o;
	size_t i;

	out = o = xmalloc(klen * 4 + 1);
	for (i = 0; i < klen; i++) {
		if (p[i] == '\\') {
			*o++ = '\\';
			*o++ = '\\';
		} else if (p[i] >= 0x21 && p[i] <= 0x7e)
			*o++ = (char)p[i];
		else {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[p[i] >> 4];
			*o++ = hex[p[i] & 0xf];
		}
	}
	*o = '\0';
	return out;
}

static int
store_key_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
store_key_unescape(const char *text, uint8_t **out, size_t *outlen,
    char **cause)
{
	const char *s = text;
	uint8_t *o;
	size_t n = 0;
	int hi, lo;

	o = xmalloc(strlen(text) + 1);
	while (*s != '\0') {
		if (*s != '\\') {
			o[n++] = (uint8_t)*s++;
			continue;
		}
		if (s[1] == '\\') {
			o[n++] = '\\';
			s += 2;
			continue;
		}
		if (s[1] == 'x' && (hi = store_key_hexval(s[2])) != -1 &&
		    (lo = store_key_hexval(s[3])) != -1) {
			o[n++] = (uint8_t)(hi << 4 | lo);
			s += 4;
			continue;
		}
		if (cause != NULL)
			xasprintf(cause, "bad escape at offset %zu in key '%s' "
			    "(use \\\\ or \\xNN)", (size_t)(s - text), text);
		free(o);
		return STORE_E_INVAL;
	}
	*out = o;
	*outlen = n;
	return 0;
}

void
store_key_init(struct store_key *k, uint8_t prefix)
{
	k->data[0] = prefix;
	k->len = 1;
}

void
store_key_u32(struct store_key *k, uint32_t v)
{
	if (k->len + 4 > sizeof k->data)
		return;
	enc_put_be32(k->data + k->len, v);
	k->len += 4;
}

void
store_key_u64(struct store_key *k, uint64_t v)
{
	if (k->len + 8 > sizeof k->data)
		return;
	enc_put_be64(k->data + k->len, v);
	k->len += 8;
}

int
store_key_cmp(const void *a, size_t alen, const void *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int c;

	if (n > 0 && (c = memcmp(a, b, n)) != 0)
		return c;
	return alen < blen ? -1 : alen > blen;
}

int
store_key_corrupt(char **cause, const char *path, const void *key,
    size_t klen, const char *fmt, ...)
{
	va_list ap;
	char *e, *why;

	if (cause == NULL)
		return STORE_E_CORRUPT;
	va_start(ap, fmt);
	xvasprintf(&why, fmt, ap);
	va_end(ap);
	e = store_key_escape(key, klen);
	xasprintf(cause, "%s%scorrupt record %s: %s", path != NULL ? path : "",
	    path != NULL ? ": " : "", e, why);
	free(e);
	free(why);
	return STORE_E_CORRUPT;
}

int
store_meta_check(const void *key, size_t klen, const void *val, size_t vlen,
    char **cause)
{
	uint32_t version;

	if (klen == STORE_FORMAT_KEYLEN &&
	    memcmp(key, STORE_FORMAT_KEY, klen) == 0) {
		if (vlen != 4)
			return store_key_corrupt(cause, NULL, key, klen,
			    "%zu bytes, expected 4", vlen);
		version = enc_get_be32(val);
		if (version == 0)
			return store_key_corrupt(cause, NULL, key, klen,
			    "format 0");
		return 0;
	}
	return STORE_NOTFOUND;
}
