/*
 * fuzz_frame.c: libFuzzer target for the wire framing (net/frame.h), fed as
 * the server reads a connection: a byte stream cut into frames.
 *
 * The input is the stream.  Each complete frame is decoded with
 * frame_decode_header() under a 64 KiB limit; JSON payloads go through
 * frame_parse_json(), binary ones have their opcode read.  What is decoded
 * must survive a round trip, or the target aborts (a finding):
 *
 *  - frame_build() of the payload decodes to the same header;
 *  - an accepted JSON object, dumped with frame_dump_json() and parsed
 *    again, is json_equal() to the first parse;
 *  - frame_json_string_lossy() of the payload is always a JSON string.
 *
 *	test/fuzz/fuzz_frame -max_len=65536 NEWDIR test/fuzz/frame
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/enc.h"
#include "net/frame.h"

#define FUZZ_FRAME_MAX 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The payload as a C string (cut at its first NUL) through the lossy path. */
static void
fuzz_frame_lossy(const uint8_t *p, size_t len)
{
	json_t *j;
	char *s;

	s = xmalloc(len + 1);
	memcpy(s, p, len);
	s[len] = '\0';
	if ((j = frame_json_string_lossy(s)) == NULL ||
	    !json_is_string(j))
		abort();
	json_decref(j);
	free(s);
}

static void
fuzz_frame_json(const uint8_t *p, size_t len)
{
	json_t *obj, *again;
	char *cause = NULL, *text;
	size_t tlen;

	if ((obj = frame_parse_json(p, len, &cause)) == NULL) {
		/* Every refusal says why. */
		if (cause == NULL || *cause == '\0')
			abort();
		free(cause);
		return;
	}
	if ((text = frame_dump_json(obj, &tlen)) == NULL)
		abort();
	if ((again = frame_parse_json(text, tlen, &cause)) == NULL)
		abort();
	if (!json_equal(obj, again))
		abort();
	json_decref(again);
	free(text);
	json_decref(obj);
}

static void
fuzz_frame_rebuild(const struct frame_header *h, const uint8_t *payload)
{
	struct enc_buf b = { 0 };
	struct frame_header h2;
	char *cause = NULL;

	if (frame_build(&b, h->type, h->id, payload, h->len, &cause) != 0)
		abort();
	if (frame_decode_header(b.data, b.len, FUZZ_FRAME_MAX, &h2,
	    &cause) != 1)
		abort();
	if (h2.len != h->len || h2.type != h->type || h2.id != h->id ||
	    memcmp(b.data + FRAME_HEADER_SIZE, payload, h->len) != 0)
		abort();
	enc_buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame_header h;
	const uint8_t *payload;
	char *cause = NULL;
	int r, e;

	while (size > 0) {
		r = frame_decode_header(data, size, FUZZ_FRAME_MAX, &h, &cause);
		if (r == -1) {
			e = frame_header_errno(&h, FUZZ_FRAME_MAX);
			if (cause == NULL || (e != -EINVAL && e != -EMSGSIZE))
				abort();
			free(cause);
			(void)frame_type_name(h.type);
			return 0;
		}
		if (r == 0)
			return 0;	/* a partial frame: wait for more */
		if (h.len > FUZZ_FRAME_MAX || h.type == 0 ||
		    h.type > FRAME_TYPE_MAX)
			abort();
		payload = data + FRAME_HEADER_SIZE;
		fuzz_frame_rebuild(&h, payload);
		fuzz_frame_lossy(payload, h.len);
		if (h.type == FRAME_BINARY_REQUEST) {
			if (h.len >= 2)
				(void)enc_get_be16(payload);
		} else
			fuzz_frame_json(payload, h.len);
		data += FRAME_HEADER_SIZE + h.len;
		size -= FRAME_HEADER_SIZE + h.len;
	}
	return 0;
}
