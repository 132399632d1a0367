/* monmap.c: the monitor map. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "map/monmap.h"

#define MONMAP_STRUCT_V 1

/* A random (version 4) UUID from getrandom(2). */
static int
monmap_uuid(char *out, size_t len, char **cause)
{
	uint8_t b[16];

	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
		xasprintf(cause, "getrandom: %s", strerror(errno));
		return -1;
	}
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
	snprintf(out, len,
	    "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x",
	    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
	    b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}

int
monmap_create(struct monmap *m, const char *name, const char *addr,
    char **cause)
{
	memset(m, 0, sizeof *m);
	if (strlen(name) == 0 || strlen(name) >= MONMAP_NAME_MAX) {
		xasprintf(cause, "monitor name '%s' must be 1 to %d "
		    "characters", name, MONMAP_NAME_MAX - 1);
		return -1;
	}
	if (monmap_uuid(m->fsid, sizeof m->fsid, cause) == -1)
		return -1;
	m->epoch = 1;
	m->created = m->modified = stamp_now();
	m->nmons = 1;
	snprintf(m->mons[0].name, sizeof m->mons[0].name, "%s", name);
	snprintf(m->mons[0].addr, sizeof m->mons[0].addr, "%s", addr);
	return 0;
}

void
monmap_encode(const struct monmap *m, struct enc_buf *b)
{
	size_t start, i;

	start = enc_buf_record_begin(b, MONMAP_STRUCT_V, 1);
	enc_buf_put_str(b, m->fsid);
	enc_buf_put_u32(b, m->epoch);
	enc_buf_put_u64(b, (uint64_t)m->created);
	enc_buf_put_u64(b, (uint64_t)m->modified);
	enc_buf_put_u32(b, (uint32_t)m->nmons);
	for (i = 0; i < m->nmons; i++) {
		enc_buf_put_str(b, m->mons[i].name);
		enc_buf_put_str(b, m->mons[i].addr);
	}
	enc_buf_record_end(b, start);
}

/* Copy a decoded string into a fixed field; too long fails the reader. */
static void
monmap_get_str(struct enc_reader *r, char *dst, size_t len)
{
	char *s;

	if ((s = enc_get_str(r)) == NULL)
		return;
	if (strlen(s) >= len)
		r->failed = 1;
	else
		memcpy(dst, s, strlen(s) + 1);
	free(s);
}

int
monmap_decode(const void *p, size_t len, struct monmap *m, char **cause)
{
	struct enc_reader r, body;
	const char *why;
	uint32_t i, n;

	memset(m, 0, sizeof *m);
	enc_reader_init(&r, p, len);
	if (enc_reader_record(&r, MONMAP_STRUCT_V, &body, &why) == -1) {
		xasprintf(cause, "monmap: %s", why);
		return -1;
	}
	monmap_get_str(&body, m->fsid, sizeof m->fsid);
	m->epoch = enc_get_u32(&body);
	m->created = (int64_t)enc_get_u64(&body);
	m->modified = (int64_t)enc_get_u64(&body);
	n = enc_get_u32(&body);
	if (n > MONMAP_MAX_MONS)
		body.failed = 1;
	for (i = 0; i < n && !body.failed; i++) {
		monmap_get_str(&body, m->mons[i].name, sizeof m->mons[i].name);
		monmap_get_str(&body, m->mons[i].addr, sizeof m->mons[i].addr);
	}
	m->nmons = n;
	if (!enc_reader_body_ok(&body) || r.left != 0 || strlen(m->fsid) != 36) {
		xasprintf(cause, "monmap: corrupt record");
		memset(m, 0, sizeof *m);
		return -1;
	}
	return 0;
}

json_t *
monmap_to_json(const struct monmap *m)
{
	json_t *mons;
	char c[STAMP_BUFSIZE], mod[STAMP_BUFSIZE];
	size_t i;

	mons = json_array();
	for (i = 0; i < m->nmons; i++)
		json_array_append_new(mons, json_pack("{s:I, s:s, s:s}",
		    "rank", (json_int_t)i, "name", m->mons[i].name,
		    "addr", m->mons[i].addr));
	return json_pack("{s:I, s:s, s:s, s:s, s:o}",
	    "epoch", (json_int_t)m->epoch, "fsid", m->fsid,
	    "created", stamp_format(m->created, c, sizeof c),
	    "modified", stamp_format(m->modified, mod, sizeof mod),
	    "mons", mons);
}
