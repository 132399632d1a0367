/* test_frame.c: the frame codec and the JSON payload checks. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "net/frame.h"

#define MAX 1024

/* A raw header with every field chosen by the test. */
static void
raw_header(uint8_t *p, uint32_t len, uint8_t type, uint8_t flags,
    uint16_t reserved, uint64_t id)
{
	enc_put_be32(p, len);
	p[4] = type;
	p[5] = flags;
	enc_put_be16(p + 6, reserved);
	enc_put_be64(p + 8, id);
}

Test(frame, header_round_trip)
{
	uint8_t buf[FRAME_HEADER_SIZE + 5];
	struct frame_header h;
	char *cause = NULL;
	unsigned int type;

	for (type = FRAME_HELLO; type <= FRAME_TYPE_MAX; type++) {
		frame_encode_header(buf, (uint8_t)type, 5,
		    0x0102030405060708ULL);
		memcpy(buf + FRAME_HEADER_SIZE, "hello", 5);
		cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h,
		    &cause), 1);
		cr_assert_null(cause);
		cr_assert_eq(h.len, 5);
		cr_assert_eq(h.type, type);
		cr_assert_eq(h.flags, 0);
		cr_assert_eq(h.reserved, 0);
		cr_assert_eq(h.id, 0x0102030405060708ULL);
	}
	/* The layout is the documented one: big-endian length and id. */
	frame_encode_header(buf, FRAME_REPLY, 0x11223344,
	    0xaabbccddeeff0011ULL);
	cr_assert_eq(buf[0], 0x11);
	cr_assert_eq(buf[3], 0x44);
	cr_assert_eq(buf[4], FRAME_REPLY);
	cr_assert_eq(buf[5], 0);
	cr_assert_eq(buf[6], 0);
	cr_assert_eq(buf[7], 0);
	cr_assert_eq(buf[8], 0xaa);
	cr_assert_eq(buf[15], 0x11);
}

Test(frame, empty_payload_is_whole)
{
	uint8_t buf[FRAME_HEADER_SIZE];
	struct frame_header h;
	char *cause = NULL;

	frame_encode_header(buf, FRAME_REQUEST, 0, 9);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause), 1);
	cr_assert_eq(h.len, 0);
}

Test(frame, short_input_needs_more)
{
	uint8_t buf[FRAME_HEADER_SIZE + 10];
	struct frame_header h;
	char *cause = NULL;
	size_t n;

	frame_encode_header(buf, FRAME_REQUEST, 10, 1);
	memset(buf + FRAME_HEADER_SIZE, 'x', 10);
	/* Every prefix shorter than the whole frame asks for more. */
	for (n = 0; n < sizeof buf; n++) {
		cr_assert_eq(frame_decode_header(buf, n, MAX, &h, &cause), 0,
		    "prefix of %zu bytes", n);
		cr_assert_null(cause);
	}
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause), 1);
}

Test(frame, bytes_after_the_frame_are_the_next_one)
{
	uint8_t buf[2 * FRAME_HEADER_SIZE + 3];
	struct frame_header h;
	char *cause = NULL;

	frame_encode_header(buf, FRAME_REQUEST, 3, 1);
	memcpy(buf + FRAME_HEADER_SIZE, "abc", 3);
	frame_encode_header(buf + FRAME_HEADER_SIZE + 3, FRAME_REQUEST, 99, 2);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause), 1);
	cr_assert_eq(h.len, 3);
	cr_assert_eq(h.id, 1);
	cr_assert_eq(frame_decode_header(buf + FRAME_HEADER_SIZE + 3,
	    FRAME_HEADER_SIZE, MAX, &h, &cause), 0);
	cr_assert_eq(h.id, 2);
}

Test(frame, oversize_refused_from_the_header_alone)
{
	uint8_t buf[FRAME_HEADER_SIZE];
	struct frame_header h;
	char *cause = NULL;

	raw_header(buf, MAX + 1, FRAME_REQUEST, 0, 0, 42);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause),
	    -1);
	cr_assert_not_null(cause);
	cr_assert_not_null(strstr(cause, "1025"), "%s", cause);
	cr_assert_not_null(strstr(cause, "1024"), "%s", cause);
	cr_assert_eq(h.id, 42, "the offending id is known for the reply");
	cr_assert_eq(frame_header_errno(&h, MAX), -EMSGSIZE);
	free(cause);

	/* Exactly the limit is fine; 4 GiB - 1 is refused. */
	raw_header(buf, MAX, FRAME_REQUEST, 0, 0, 1);
	cause = NULL;
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause), 0);
	raw_header(buf, UINT32_MAX, FRAME_REQUEST, 0, 0, 1);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause),
	    -1);
	free(cause);
}

Test(frame, bad_types)
{
	static const uint8_t bad[] = { 0, 8, 9, 0x80, 0xff };
	uint8_t buf[FRAME_HEADER_SIZE];
	struct frame_header h;
	char *cause;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		cause = NULL;
		raw_header(buf, 0, bad[i], 0, 0, 7);
		cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h,
		    &cause), -1, "type %u", bad[i]);
		cr_assert_not_null(strstr(cause, "unknown frame type"), "%s",
		    cause);
		cr_assert_eq(frame_header_errno(&h, MAX), -EINVAL);
		free(cause);
	}
}

Test(frame, flags_but_more_on_a_reply_and_reserved_must_be_zero)
{
	uint8_t buf[FRAME_HEADER_SIZE];
	struct frame_header h;
	char *cause = NULL;

	raw_header(buf, 0, FRAME_REQUEST, 0x01, 0, 1);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause),
	    -1);
	cr_assert_not_null(strstr(cause, "flags"), "%s", cause);
	cr_assert_eq(frame_header_errno(&h, MAX), -EINVAL);
	free(cause);

	/* MORE is a REPLY's flag only, and the only one. */
	cause = NULL;
	raw_header(buf, 0, FRAME_PUSH, FRAME_FLAG_MORE, 0, 1);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause), -1);
	free(cause);
	cause = NULL;
	raw_header(buf, 0, FRAME_REPLY, 0x02, 0, 1);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause), -1);
	cr_assert_not_null(strstr(cause, "flags"), "%s", cause);
	free(cause);
	raw_header(buf, 0, FRAME_REPLY, FRAME_FLAG_MORE, 0, 9);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause), 1);
	cr_assert_eq(h.flags, FRAME_FLAG_MORE);
	cr_assert_eq(h.id, 9);

	cause = NULL;
	raw_header(buf, 0, FRAME_REQUEST, 0, 0x8000, 1);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause),
	    -1);
	cr_assert_not_null(strstr(cause, "reserved"), "%s", cause);
	free(cause);

	cause = NULL;
	raw_header(buf, 0, FRAME_REQUEST, 0, 0x0001, 1);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause),
	    -1);
	free(cause);

	/* A bad header and an oversize length: EINVAL, it is malformed. */
	cause = NULL;
	raw_header(buf, MAX * 2, FRAME_REQUEST, 0, 1, 1);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause),
	    -1);
	cr_assert_eq(frame_header_errno(&h, MAX), -EINVAL);
	free(cause);
}

Test(frame, header_with_flags)
{
	uint8_t buf[FRAME_HEADER_SIZE];
	struct frame_header h;
	char *cause = NULL;

	frame_encode_header_flags(buf, FRAME_REPLY, FRAME_FLAG_MORE, 300, 42);
	cr_assert_eq(buf[5], FRAME_FLAG_MORE);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause), 0,
	    "a header whose payload is still to come");
	cr_assert_eq(h.len, 300);
	cr_assert_eq(h.type, FRAME_REPLY);
	cr_assert_eq(h.flags, FRAME_FLAG_MORE);
	cr_assert_eq(h.id, 42);
	/* An oversize part is still EMSGSIZE: the flag is a valid one. */
	frame_encode_header_flags(buf, FRAME_REPLY, FRAME_FLAG_MORE, MAX + 1,
	    42);
	cr_assert_eq(frame_decode_header(buf, sizeof buf, MAX, &h, &cause), -1);
	cr_assert_eq(frame_header_errno(&h, MAX), -EMSGSIZE);
	free(cause);
}

Test(frame, build_appends_whole_frames)
{
	struct enc_buf b = {0};
	struct frame_header h;
	char *cause = NULL;

	cr_assert_eq(frame_build(&b, FRAME_PUSH, 3, "{}", 2, &cause), 0);
	cr_assert_eq(frame_build(&b, FRAME_REPLY, 4, "{\"a\":1}", 7, &cause),
	    0);
	cr_assert_eq(b.len, 2 * FRAME_HEADER_SIZE + 9);
	cr_assert_eq(frame_decode_header(b.data, b.len, MAX, &h, &cause), 1);
	cr_assert_eq(h.type, FRAME_PUSH);
	cr_assert_eq(h.id, 3);
	cr_assert_eq(frame_decode_header(b.data + FRAME_HEADER_SIZE + 2,
	    b.len - FRAME_HEADER_SIZE - 2, MAX, &h, &cause), 1);
	cr_assert_eq(h.type, FRAME_REPLY);
	cr_assert_eq(h.len, 7);
	cr_assert_eq(memcmp(b.data + 2 * FRAME_HEADER_SIZE + 2, "{\"a\":1}", 7),
	    0);
	enc_buf_free(&b);
}

Test(frame, type_names)
{
	cr_assert_str_eq(frame_type_name(FRAME_HELLO), "HELLO");
	cr_assert_str_eq(frame_type_name(FRAME_BINARY_REQUEST),
	    "BINARY_REQUEST");
	cr_assert_str_eq(frame_type_name(0), "unknown");
	cr_assert_str_eq(frame_type_name(200), "unknown");
}

static json_t *
parse(const char *s, char **cause)
{
	*cause = NULL;
	return frame_parse_json(s, strlen(s), cause);
}

Test(frame_json, object_parses)
{
	char *cause;
	json_t *o = parse("{\"prefix\":\"status\",\"n\":[1,{\"x\":null}]}",
	    &cause);

	cr_assert_not_null(o, "%s", cause);
	cr_assert_str_eq(json_string_value(json_object_get(o, "prefix")),
	    "status");
	json_decref(o);
}

Test(frame_json, syntax_error_names_line_and_column)
{
	char *cause;

	cr_assert_null(parse("{\"a\":1,\n \"b\": tru}", &cause));
	cr_assert_not_null(strstr(cause, "line 2"), "%s", cause);
	cr_assert_not_null(strstr(cause, "column"), "%s", cause);
	free(cause);
}

Test(frame_json, refusals)
{
	static const char *bad[] = {
		"",			  /* empty */
		"[1,2]",		  /* not an object */
		"\"str\"",		  /* not an object */
		"{\"a\":1,\"a\":2}",	  /* duplicate key */
		"{\"a\":1} {}",		  /* trailing data */
		"{\"a\":\"\\u0000\"}",	  /* NUL in a string */
		"{\"a\":1",		  /* truncated */
		"{\"a\":\"\xc3\x28\"}",	  /* invalid UTF-8 */
		"{\"a\":\"\xed\xa0\x80\"}", /* a UTF-16 surrogate */
		"{\"a\":\"\xc0\xaf\"}",	  /* overlong */
	};
	char *cause;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		cr_assert_null(parse(bad[i], &cause), "case %zu", i);
		cr_assert_not_null(cause, "case %zu", i);
		cr_assert_not_null(strstr(cause, "bad JSON"), "%s", cause);
		free(cause);
	}
}

Test(frame_json, duplicate_key_is_named)
{
	char *cause;

	cr_assert_null(parse("{\"pool\":\"a\",\"pool\":\"b\"}", &cause));
	cr_assert_not_null(strstr(cause, "duplicate"), "%s", cause);
	free(cause);
}

Test(frame_json, depth_limit)
{
	char buf[512], *cause;
	size_t i, n;
	json_t *o;

	/* 64 levels (the object and 63 arrays) parse... */
	n = 0;
	buf[n++] = '{';
	memcpy(buf + n, "\"a\":", 4);
	n += 4;
	for (i = 0; i < FRAME_JSON_MAX_DEPTH - 1; i++)
		buf[n++] = '[';
	for (i = 0; i < FRAME_JSON_MAX_DEPTH - 1; i++)
		buf[n++] = ']';
	buf[n++] = '}';
	buf[n] = '\0';
	o = parse(buf, &cause);
	cr_assert_not_null(o, "%s", cause);
	json_decref(o);

	/* ...65 do not, and the message says why. */
	n = 0;
	buf[n++] = '{';
	memcpy(buf + n, "\"a\":", 4);
	n += 4;
	for (i = 0; i < FRAME_JSON_MAX_DEPTH; i++)
		buf[n++] = '[';
	for (i = 0; i < FRAME_JSON_MAX_DEPTH; i++)
		buf[n++] = ']';
	buf[n++] = '}';
	buf[n] = '\0';
	cr_assert_null(parse(buf, &cause));
	cr_assert_not_null(strstr(cause, "nested deeper than 64"), "%s",
	    cause);
	free(cause);
}

Test(frame_json, depth_ignores_brackets_in_strings)
{
	const char *s = "{\"a\":\"[[[[{{{{\\\"[[[[\"}";
	int line = 0, col = 0;

	cr_assert_eq(frame_json_depth(s, strlen(s), 64, &line, &col), 1);
	cr_assert_eq(frame_json_depth("[[[\n[[", 6, 4, &line, &col), 5);
	cr_assert_eq(line, 2);
	cr_assert_eq(col, 2);
}

Test(frame_json, huge_depth_stops_early)
{
	size_t n = 1 << 20;
	char *s = xmalloc(n);
	char *cause = NULL;

	memset(s, '[', n);
	cr_assert_eq(frame_json_depth(s, n, 64, NULL, NULL), 65);
	cr_assert_null(frame_parse_json(s, n, &cause));
	cr_assert_not_null(cause);
	free(cause);
	free(s);
}

Test(frame_json, lossy_string)
{
	json_t *j;

	j = frame_json_string_lossy("ok \xc3\xa9");
	cr_assert_str_eq(json_string_value(j), "ok \xc3\xa9");
	json_decref(j);
	j = frame_json_string_lossy("bad \xff\xc3 end");
	cr_assert_str_eq(json_string_value(j), "bad ?? end");
	json_decref(j);
	j = frame_json_string_lossy(NULL);
	cr_assert_str_eq(json_string_value(j), "");
	json_decref(j);
}
