/*
 * mon_record.c: the commit record and cluster log entry values (see
 * mon_record.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "common/mapmon.h"
#include "map/statfs.h"
#include "mon/mon_record.h"

#define MON_RECORD_COMMIT_V 1
#define MON_RECORD_LOG_V 1
#define MON_RECORD_MUTES_V 1
#define MON_RECORD_AUTH_V 1
#define MON_RECORD_STATFS_V 1

void
mon_record_commit_encode(const struct mon_rec *r, struct enc_buf *b)
{
	size_t start = enc_buf_record_begin(b, MON_RECORD_COMMIT_V, 1);

	enc_buf_put_u32(b, r->osdmap_epoch);
	enc_buf_put_u32(b, r->osdmap_first);
	enc_buf_put_u64(b, r->pgmap_version);
	enc_buf_put_u64(b, r->pgmap_first);
	enc_buf_put_u64(b, r->log_last);
	enc_buf_put_u64(b, r->log_first);
	enc_buf_put_u64(b, (uint64_t)r->stamp);
	enc_buf_record_end(b, start);
}

int
mon_record_commit_decode(const void *p, size_t len, struct mon_rec *r,
    char **cause)
{
	struct enc_reader rd, body;
	const char *why;

	memset(r, 0, sizeof *r);
	enc_reader_init(&rd, p, len);
	if (enc_reader_record(&rd, MON_RECORD_COMMIT_V, &body, &why) == -1) {
		xasprintf(cause, "commit record: %s", why);
		return -1;
	}
	r->osdmap_epoch = enc_get_u32(&body);
	r->osdmap_first = enc_get_u32(&body);
	r->pgmap_version = enc_get_u64(&body);
	r->pgmap_first = enc_get_u64(&body);
	r->log_last = enc_get_u64(&body);
	r->log_first = enc_get_u64(&body);
	r->stamp = (int64_t)enc_get_u64(&body);
	if (!enc_reader_body_ok(&body) || rd.left != 0 ||
	    r->osdmap_first > r->osdmap_epoch || r->osdmap_first == 0 ||
	    r->pgmap_first > r->pgmap_version + 1 ||
	    r->log_first > r->log_last + 1) {
		xasprintf(cause, "commit record: corrupt or inconsistent "
		    "(osdmap %u..%u, pgmap %llu..%llu, log %llu..%llu)",
		    r->osdmap_first, r->osdmap_epoch,
		    (unsigned long long)r->pgmap_first,
		    (unsigned long long)r->pgmap_version,
		    (unsigned long long)r->log_first,
		    (unsigned long long)r->log_last);
		return -1;
	}
	return 0;
}

void
mon_record_log_encode(const struct mon_log_entry *e, struct enc_buf *b)
{
	size_t start = enc_buf_record_begin(b, MON_RECORD_LOG_V, 1);

	enc_buf_put_u64(b, e->seq);
	enc_buf_put_u64(b, (uint64_t)e->stamp);
	enc_buf_put_u8(b, (uint8_t)e->severity);
	enc_buf_put_str(b, e->message);
	enc_buf_record_end(b, start);
}

int
mon_record_log_decode(const void *p, size_t len, struct mon_log_entry *e,
    char **cause)
{
	struct enc_reader r, body;
	const char *why;

	memset(e, 0, sizeof *e);
	enc_reader_init(&r, p, len);
	if (enc_reader_record(&r, MON_RECORD_LOG_V, &body, &why) == -1) {
		xasprintf(cause, "cluster log entry: %s", why);
		return -1;
	}
	e->seq = enc_get_u64(&body);
	e->stamp = (int64_t)enc_get_u64(&body);
	e->severity = enc_get_u8(&body);
	e->message = enc_get_str(&body);
	if (!enc_reader_body_ok(&body) || r.left != 0 || e->message == NULL ||
	    e->severity > MON_LOG_ERROR) {
		free(e->message);
		e->message = NULL;
		xasprintf(cause, "cluster log entry: corrupt record");
		return -1;
	}
	return 0;
}

void
mon_auth_entity_clear(struct mon_auth_entity *e)
{
	size_t i;

	free(e->name);
	for (i = 0; i < e->ncaps; i++) {
		free(e->caps[i].service);
		free(e->caps[i].cap);
	}
	free(e->caps);
	OPENSSL_cleanse(e->key, sizeof e->key);
	memset(e, 0, sizeof *e);
}

void
mon_record_auth_encode(const struct mon_auth_entity *e, struct enc_buf *b)
{
	size_t start = enc_buf_record_begin(b, MON_RECORD_AUTH_V, 1), i;

	enc_buf_put_bytes(b, e->key, sizeof e->key);
	enc_buf_put_u16(b, (uint16_t)e->ncaps);
	for (i = 0; i < e->ncaps; i++) {
		enc_buf_put_str(b, e->caps[i].service);
		enc_buf_put_str(b, e->caps[i].cap);
	}
	enc_buf_record_end(b, start);
}

int
mon_record_auth_decode(const char *name, const void *p, size_t len,
    struct mon_auth_entity *e, char **cause)
{
	struct enc_reader r, body;
	const uint8_t *key;
	const char *why;
	char *bad = NULL;
	size_t i, j;
	uint16_t n;

	memset(e, 0, sizeof *e);
	if (mon_auth_name_check(name, &bad) == -1) {
		xasprintf(cause, "auth entity: %s", bad);
		free(bad);
		return -1;
	}
	enc_reader_init(&r, p, len);
	if (enc_reader_record(&r, MON_RECORD_AUTH_V, &body, &why) == -1) {
		xasprintf(cause, "auth entity %s: %s", name, why);
		return -1;
	}
	key = enc_reader_take(&body, MON_AUTH_KEY_LEN);
	n = enc_get_u16(&body);
	if (key == NULL || body.failed || n > MON_AUTH_MAX_CAPS) {
		xasprintf(cause, "auth entity %s: corrupt record%s", name,
		    n > MON_AUTH_MAX_CAPS ? " (too many caps)" : "");
		return -1;
	}
	e->name = xstrdup(name);
	memcpy(e->key, key, MON_AUTH_KEY_LEN);
	e->caps = xcalloc(n ? n : 1, sizeof *e->caps);
	for (i = 0; i < n; i++) {
		e->caps[i].service = enc_get_str(&body);
		e->caps[i].cap = enc_get_str(&body);
		e->ncaps++;
		if (e->caps[i].service == NULL || e->caps[i].cap == NULL)
			break;
		for (j = 0; j < i; j++)
			if (strcmp(e->caps[j].service, e->caps[i].service) == 0)
				body.failed = 1;
	}
	if (!enc_reader_body_ok(&body) || r.left != 0) {
		xasprintf(cause, "auth entity %s: corrupt record", name);
		mon_auth_entity_clear(e);
		return -1;
	}
	return 0;
}

void
mon_record_mutes_encode(const struct mon_mute *v, size_t n, struct enc_buf *b)
{
	size_t start = enc_buf_record_begin(b, MON_RECORD_MUTES_V, 1), i;

	enc_buf_put_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		enc_buf_put_str(b, v[i].code);
		enc_buf_put_u64(b, (uint64_t)v[i].ttl);
		enc_buf_put_u8(b, (uint8_t)(v[i].sticky != 0));
		enc_buf_put_str(b, v[i].summary != NULL ? v[i].summary : "");
		enc_buf_put_u64(b, v[i].count);
	}
	enc_buf_record_end(b, start);
}

int
mon_record_mutes_decode(const void *p, size_t len, struct mon_mute **out,
    size_t *n, char **cause)
{
	struct enc_reader r, body;
	struct mon_mute *v;
	const char *why;
	char *code;
	uint32_t count, i;

	*out = NULL;
	*n = 0;
	enc_reader_init(&r, p, len);
	if (enc_reader_record(&r, MON_RECORD_MUTES_V, &body, &why) == -1) {
		xasprintf(cause, "health mutes: %s", why);
		return -1;
	}
	count = enc_get_u32(&body);
	/* Never size from a count read: each mute takes 21 bytes at least. */
	if (!enc_reader_body_ok(&body) || count > body.left / 21) {
		xasprintf(cause, "health mutes: corrupt record");
		return -1;
	}
	v = xcalloc(count ? count : 1, sizeof *v);
	for (i = 0; i < count; i++) {
		code = enc_get_str(&body);
		v[i].ttl = (int64_t)enc_get_u64(&body);
		v[i].sticky = enc_get_u8(&body);
		v[i].summary = enc_get_str(&body);
		v[i].count = enc_get_u64(&body);
		if (code == NULL || *code == '\0' ||
		    strlen(code) >= sizeof v[i].code || v[i].summary == NULL ||
		    !enc_reader_body_ok(&body)) {
			free(code);
			xasprintf(cause,
			    "health mutes: corrupt record (mute "
			    "%u)",
			    i);
			goto fail;
		}
		memcpy(v[i].code, code, strlen(code) + 1);
		free(code);
	}
	if (r.left != 0) {
		xasprintf(cause, "health mutes: corrupt record");
		goto fail;
	}
	*out = v;
	*n = count;
	return 0;
fail:
	for (i = 0; i < count; i++)
		free(v[i].summary);
	free(v);
	return -1;
}

void
mon_record_statfs_encode(const struct statfs_osd *st, struct enc_buf *b)
{
	size_t start = enc_buf_record_begin(b, MON_RECORD_STATFS_V, 1);

	enc_buf_put_u64(b, st->total);
	enc_buf_put_u64(b, st->used);
	enc_buf_put_u64(b, st->avail);
	enc_buf_put_u64(b, st->data);
	enc_buf_put_u64(b, st->omap);
	enc_buf_put_u64(b, st->meta);
	enc_buf_record_end(b, start);
}

int
mon_record_statfs_decode(const void *p, size_t len, struct statfs_osd *st,
    char **cause)
{
	struct enc_reader rd, body;
	const char *why;

	memset(st, 0, sizeof *st);
	enc_reader_init(&rd, p, len);
	if (enc_reader_record(&rd, MON_RECORD_STATFS_V, &body, &why) == -1) {
		xasprintf(cause, "capacity record: %s", why);
		return -1;
	}
	st->total = enc_get_u64(&body);
	st->used = enc_get_u64(&body);
	st->avail = enc_get_u64(&body);
	st->data = enc_get_u64(&body);
	st->omap = enc_get_u64(&body);
	st->meta = enc_get_u64(&body);
	if (!enc_reader_body_ok(&body) || rd.left != 0) {
		xasprintf(cause, "capacity record: corrupt");
		return -1;
	}
	/* What statfs_from_json() refuses of a beacon. */
	if (st->used > st->total || st->avail > st->total) {
		xasprintf(cause,
		    "capacity record: used %llu or avail %llu "
		    "over total %llu",
		    (unsigned long long)st->used, (unsigned long long)st->avail,
		    (unsigned long long)st->total);
		return -1;
	}
	return 0;
}
