/*
 * frame.h: the mapmon wire framing (mapmon-protocol(7)), as pure functions.
 *
 * A frame is a 16-byte header and a payload:
 *
 *	offset	size	field
 *	0	4	payload length, big-endian (not counting the header)
 *	4	1	type (enum frame_type)
 *	5	1	flags: FRAME_FLAG_MORE on a REPLY, else 0
 *			(the other bits are kept for a frame MAC)
 *	6	2	reserved: 0
 *	8	8	request id, big-endian
 *
 * HELLO, REQUEST, REPLY, PUSH and AUTH carry a JSON object; BINARY_REQUEST
 * carries a big-endian u16 opcode and opcode-specific bytes; STREAM, only
 * between monitors and always sealed, carries bytes of a stream.  After the
 * handshake of an authenticated connection every frame is sealed
 * (net/seal.h): its header as above, its payload encrypted and followed by
 * a 16-byte tag, which the length counts.  Nothing here touches libevent
 * or sockets, so the decoders can be fuzzed on their own.
 */
#ifndef FRAME_H
#define FRAME_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/enc.h"

#define FRAME_HEADER_SIZE 16

/* The protocol version both hellos carry. */
#define FRAME_PROTOCOL 1

/* The deepest nesting of arrays and objects a JSON payload may have. */
#define FRAME_JSON_MAX_DEPTH 64

/* The default port, where an address names none (mapmon.conf(5)). */
#define FRAME_DEFAULT_PORT 6788

enum frame_type {
	FRAME_HELLO = 1,	  /* first frame each way */
	FRAME_REQUEST = 2,	  /* client -> server: a JSON command object */
	FRAME_REPLY = 3,	  /* server -> client: {"rc","status","data"} */
	FRAME_PUSH = 4,		  /* server -> client: id = subscription's */
	FRAME_BINARY_REQUEST = 5, /* client -> server: u16 opcode, body */
	FRAME_AUTH = 6,		  /* each way, after HELLO: {"proof"} */
	FRAME_STREAM = 7,	  /* monitor to monitor: bytes (net/peer.h) */
};
#define FRAME_TYPE_MAX FRAME_STREAM

/*
 * The one flag: on a REPLY, more frames of the same reply follow (a reply
 * in parts, mapmon-protocol(7)); the payloads of all its frames, in order,
 * make the reply's JSON text.  Sent only to a client whose HELLO listed
 * FRAME_FEATURE_PARTS among its "features".
 */
#define FRAME_FLAG_MORE 0x01
#define FRAME_FEATURE_PARTS "parts"

/* Binary request opcodes (the u16 at the start of the payload). */
#define FRAME_BINARY_PG_REPORT 1
/*
 * A follower's forward of a client's binary request to the leader
 * (mapmon-protocol(7), FORWARDING): u8 length, the client's entity name
 * (empty: none), then that request whole, its own opcode first.  Taken
 * from the mon. entity only.
 */
#define FRAME_BINARY_FORWARD 2

struct frame_header {
	uint32_t len; /* payload bytes after the header */
	uint8_t type;
	uint8_t flags;
	uint16_t reserved;
	uint64_t id;
};

/* Write a header for a payload of len bytes into out[FRAME_HEADER_SIZE]. */
void frame_encode_header(uint8_t *out, uint8_t type, uint32_t len,
    uint64_t id);
/* The same with flags (FRAME_FLAG_MORE on a REPLY). */
void frame_encode_header_flags(uint8_t *out, uint8_t type, uint8_t flags,
    uint32_t len, uint64_t id);

/*
 * Decode the frame at the start of p[0..len), checking every header field:
 * the type is known, flags are zero (or FRAME_FLAG_MORE on a REPLY),
 * reserved is zero and the payload is at most max_frame bytes.  Returns 1 when a valid header and its whole payload are
 * in p (the frame is FRAME_HEADER_SIZE + h->len bytes), 0 when more bytes
 * are needed (fewer than FRAME_HEADER_SIZE, or a valid header whose payload
 * is still incomplete), and -1 with *cause set (the caller frees it) when the
 * header is bad.  *h is filled whenever at least a header's worth of bytes is
 * in p, valid or not, so that the caller can answer the offending request id
 * and tell an oversize frame (h->len > max_frame, -EMSGSIZE) from a malformed
 * one (-EINVAL); frame_header_errno() makes that choice.
 */
int frame_decode_header(const uint8_t *p, size_t len, size_t max_frame,
    struct frame_header *h, char **cause);

/*
 * The errno (negative) to answer a header that frame_decode_header()
 * refused: -EMSGSIZE when it is too long, -EINVAL otherwise.
 */
int frame_header_errno(const struct frame_header *h, size_t max_frame);

/* A type's name for messages ("HELLO", ...; "unknown" for others). */
const char *frame_type_name(unsigned int type);

/*
 * The nesting depth of the JSON text p[0..len): the largest number of
 * arrays and objects open at once, strings (and their escapes) skipped.  It
 * does not validate the text; json_loadb() does that.  Stops counting once
 * past limit and returns limit + 1, so an attacker's megabyte of '[' costs
 * one pass.  *line and *column (1-based, may be NULL) tell where the limit
 * was first passed.
 */
size_t frame_json_depth(const char *p, size_t len, size_t limit, int *line,
    int *column);

/*
 * Parse a JSON payload: valid UTF-8, one JSON object (nothing after it), no
 * duplicate keys, no NUL in strings, at most FRAME_JSON_MAX_DEPTH deep.
 * Returns a new reference the caller owns (json_decref), or NULL with *cause
 * set to a one-line message naming the problem and, for syntax errors, its
 * line and column.
 */
json_t *frame_parse_json(const void *p, size_t len, char **cause);

/*
 * Append one whole frame (header and payload) to b.  Returns 0, or -1 with
 * *cause set when len does not fit the 32-bit length field.
 */
int frame_build(struct enc_buf *b, uint8_t type, uint64_t id, const void *p,
    size_t len, char **cause);

/*
 * Serialise obj compactly for a frame payload.  Returns a string the caller
 * frees with free() and its length in *len, or NULL when jansson cannot
 * encode it (which a valid json_t never causes).
 */
char *frame_dump_json(const json_t *obj, size_t *len);

/*
 * A JSON string for s even when s is not valid UTF-8 (a status built from
 * client bytes): invalid bytes become '?'.  Returns a new reference.
 */
json_t *frame_json_string_lossy(const char *s);

#endif /* FRAME_H */
