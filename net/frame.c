/* frame.c: the wire framing, header checks and JSON payload parsing. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "net/frame.h"

void
frame_encode_header(uint8_t *out, uint8_t type, uint32_t len, uint64_t id)
{
	frame_encode_header_flags(out, type, 0, len, id);
}

void
frame_encode_header_flags(uint8_t *out, uint8_t type, uint8_t flags,
    uint32_t len, uint64_t id)
{
	enc_put_be32(out, len);
	out[4] = type;
	out[5] = flags;
	enc_put_be16(out + 6, 0);
	enc_put_be64(out + 8, id);
}

/* The flags a frame of type may carry. */
static uint8_t
frame_flags_allowed(uint8_t type)
{
	return type == FRAME_REPLY ? FRAME_FLAG_MORE : 0;
}

const char *
frame_type_name(unsigned int type)
{
	static const char *names[] = {
		[FRAME_HELLO] = "HELLO",
		[FRAME_REQUEST] = "REQUEST",
		[FRAME_REPLY] = "REPLY",
		[FRAME_PUSH] = "PUSH",
		[FRAME_BINARY_REQUEST] = "BINARY_REQUEST",
		[FRAME_AUTH] = "AUTH",
		[FRAME_STREAM] = "STREAM",
	};

	if (type >= nitems(names) || names[type] == NULL)
		return "unknown";
	return names[type];
}

int
frame_decode_header(const uint8_t *p, size_t len, size_t max_frame,
    struct frame_header *h, char **cause)
{
	if (len < FRAME_HEADER_SIZE)
		return 0;
	h->len = enc_get_be32(p);
	h->type = p[4];
	h->flags = p[5];
	h->reserved = enc_get_be16(p + 6);
	h->id = enc_get_be64(p + 8);

	if (h->type == 0 || h->type > FRAME_TYPE_MAX) {
		xasprintf(cause, "unknown frame type %u", h->type);
		return -1;
	}
	if ((h->flags & ~frame_flags_allowed(h->type)) != 0) {
		xasprintf(cause, "unknown frame flags 0x%02x (%s)", h->flags,
		    h->type == FRAME_REPLY ? "only 0x01, more, is defined" :
					     "none are defined for this type");
		return -1;
	}
	if (h->reserved != 0) {
		xasprintf(cause, "reserved frame header field is 0x%04x, not 0",
		    h->reserved);
		return -1;
	}
	if (h->len > max_frame) {
		xasprintf(cause, "frame of %lu bytes is larger than the limit "
		    "of %zu bytes", (unsigned long)h->len, max_frame);
		return -1;
	}
	if (len - FRAME_HEADER_SIZE < h->len)
		return 0;
	return 1;
}

int
frame_header_errno(const struct frame_header *h, size_t max_frame)
{
	if (h->type != 0 && h->type <= FRAME_TYPE_MAX &&
	    (h->flags & ~frame_flags_allowed(h->type)) == 0 &&
	    h->reserved == 0 && h->len > max_frame)
		return -EMSGSIZE;
	return -EINVAL;
}

size_t
frame_json_depth(const char *p, size_t len, size_t limit, int *line,
    int *column)
{
	size_t i, depth = 0, max = 0;
	int in_string = 0, escaped = 0, ln = 1, col = 0;

	for (i = 0; i < len; i++) {
		char c = p[i];

		if (c == '\n') {
			ln++;
			col = 0;
		} else
			col++;
		if (in_string) {
			if (escaped)
				escaped = 0;
			else if (c == '\\')
				escaped = 1;
			else if (c == '"')
				in_string = 0;
			continue;
		}
		switch (c) {
		case '"':
			in_string = 1;
			break;
		case '[':
		case '{':
			if (++depth > max)
				max = depth;
			if (max > limit) {
				if (line != NULL)
					*line = ln;
				if (column != NULL)
					*column = col;
				return limit + 1;
			}
			break;
		case ']':
		case '}':
			/* Unbalanced text is json_loadb's to refuse. */
			if (depth > 0)
				depth--;
			break;
		}
	}
	return max;
}

json_t *
frame_parse_json(const void *p, size_t len, char **cause)
{
	json_error_t error;
	json_t *obj;
	int line = 0, column = 0;

	if (frame_json_depth(p, len, FRAME_JSON_MAX_DEPTH, &line, &column) >
	    FRAME_JSON_MAX_DEPTH) {
		xasprintf(cause, "bad JSON at line %d column %d: nested deeper "
		    "than %d levels", line, column, FRAME_JSON_MAX_DEPTH);
		return NULL;
	}
	obj = json_loadb(p, len, JSON_REJECT_DUPLICATES, &error);
	if (obj == NULL) {
		xasprintf(cause, "bad JSON at line %d column %d: %s",
		    error.line, error.column, error.text);
		return NULL;
	}
	if (!json_is_object(obj)) {
		xasprintf(cause, "bad JSON: the payload is an array, not an "
		    "object");
		json_decref(obj);
		return NULL;
	}
	return obj;
}

int
frame_build(struct enc_buf *b, uint8_t type, uint64_t id, const void *p,
    size_t len, char **cause)
{
	if (len > UINT32_MAX) {
		xasprintf(cause, "frame payload of %zu bytes does not fit the "
		    "32-bit length field", len);
		return -1;
	}
	frame_encode_header(enc_buf_reserve(b, FRAME_HEADER_SIZE), type,
	    (uint32_t)len, id);
	b->len += FRAME_HEADER_SIZE;
	enc_buf_put_bytes(b, p, len);
	return 0;
}

char *
frame_dump_json(const json_t *obj, size_t *len)
{
	char *s;

	if ((s = json_dumps(obj, JSON_COMPACT)) == NULL)
		return NULL;
	*len = strlen(s);
	return s;
}

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static size_t
frame_utf8_seq(const unsigned char *s, size_t left)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

json_t *
frame_json_string_lossy(const char *s)
{
	json_t *j;
	char *copy;
	size_t i, n, len;

	if (s == NULL)
		s = "";
	if ((j = json_string(s)) != NULL)
		return j;
	len = strlen(s);
	copy = xstrdup(s);
	for (i = 0; i < len; i += n) {
		n = frame_utf8_seq((const unsigned char *)copy + i, len - i);
		if (n == 0) {
			copy[i] = '?';
			n = 1;
		}
	}
	if ((j = json_string(copy)) == NULL)
		j = json_string("?");
	free(copy);
	return j;
}
