/*
 * mon_record.h: the values of the monitor's own store records, the kinds of
 * mon/keys.h that no map type encodes: the commit record ("C"), the
 * cluster log entries ("L") and the health mutes ("H").  The maps encode their own records (monmap.h,
 * osdmap.h, pg.h); a pgmap incremental ("V") is a bare list of PG ids.
 *
 * Each value is one versioned enc.h record.  The decoders take bytes from
 * a disk (cold start, `mapmon-store verify`, the fuzzers): every length and
 * value is checked, nothing past len is read, and a failure is -1 with a
 * one-line *cause (xasprintf'd, the caller frees it).
 */
#ifndef MON_RECORD_H
#define MON_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "common/enc.h"
#include "mon/mon.h"

/* The commit record ("C"): where the maps stand and what is trimmed. */
struct mon_rec {
	uint32_t osdmap_epoch;
	uint32_t osdmap_first;	/* oldest epoch still stored */
	uint64_t pgmap_version;
	uint64_t pgmap_first;	/* oldest pgmap incremental still stored */
	uint64_t log_last;	/* seq of the newest cluster log entry (0: none) */
	uint64_t log_first;	/* seq of the oldest stored */
	int64_t stamp;
};

/* Append the commit record r to b. */
void mon_record_commit_encode(const struct mon_rec *r, struct enc_buf *b);

/*
 * Decode a commit record into r: 0, or -1 when it is corrupt or its ranges
 * are inconsistent (a first epoch, version or sequence number past the
 * last; osdmap epoch 0).
 */
int mon_record_commit_decode(const void *p, size_t len, struct mon_rec *r,
    char **cause);

/* Append the cluster log entry e to b. */
void mon_record_log_encode(const struct mon_log_entry *e, struct enc_buf *b);

/*
 * Decode a cluster log entry into e: 0 with e->message malloc'd (the
 * caller frees it), or -1 with nothing to free when it is corrupt or its
 * severity unknown.
 */
int mon_record_log_decode(const void *p, size_t len, struct mon_log_entry *e,
    char **cause);

/*
 * A muted health check (`health mute', mapmon(8)): its code, when the mute
 * ends (a wall-clock stamp in us; 0: never), whether it outlives the
 * check, and, for one that does not, the check's summary and count when
 * it was muted (a count that grows, or a summary that changes when the
 * count is 0, ends it, as Ceph's HealthMonitor::check_mutes()).
 */
#define MON_MUTE_CODE_MAX 24
struct mon_mute {
	char code[MON_MUTE_CODE_MAX];
	int64_t ttl;
	int sticky;
	char *summary;
	uint64_t count;
};

/* Append the mutes v[0..n) (every one, the whole set) to b. */
void mon_record_mutes_encode(const struct mon_mute *v, size_t n,
    struct enc_buf *b);

/*
 * Decode a set of mutes: 0 with *out (malloc'd; free each summary and the
 * array) and *n, or -1 with nothing to free when it is corrupt (a code
 * empty or too long, a length past the value).
 */
int mon_record_mutes_decode(const void *p, size_t len, struct mon_mute **out,
    size_t *n, char **cause);

/*
 * Append the value of an auth entity's record ("A" + its name): its key
 * and caps.
 */
void mon_record_auth_encode(const struct mon_auth_entity *e, struct enc_buf *b);

/*
 * Decode the record of the entity named name (from its key) into e: 0
 * with e's name and caps malloc'd (mon_auth_entity_clear() them; allow
 * and osd are not set), or -1 with nothing to free when it is corrupt: a
 * bad name, a bad length, more than MON_AUTH_MAX_CAPS caps, a service
 * twice.
 */
int mon_record_auth_decode(const char *name, const void *p, size_t len,
    struct mon_auth_entity *e, char **cause);

/*
 * The capacity record ("S" + the OSD's id): the statfs of its last beacon
 * as committed.  The decoder refuses a record whose figures statfs.h
 * forbids (used or avail over total).
 */
struct statfs_osd;
void mon_record_statfs_encode(const struct statfs_osd *st, struct enc_buf *b);
int mon_record_statfs_decode(const void *p, size_t len, struct statfs_osd *st,
    char **cause);

/* Free what an entity holds, wipe its key, and zero it. */
void mon_auth_entity_clear(struct mon_auth_entity *e);

#endif /* MON_RECORD_H */
