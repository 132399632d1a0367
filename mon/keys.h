/*
 * keys.h: the monitor's store keys.
 *
 * One byte of prefix per kind of record, then fixed-width big-endian numbers
 * so that byte order is numeric order and one ordered range scan reads a
 * kind in order (prefix 0x00 is the store layer's own):
 *
 *   "C"                     commit record: epochs, versions, trim floors
 *   "M"                     monmap
 *   "O" be32 epoch          full osdmap of that epoch
 *   "I" be32 epoch          osdmap incremental that made that epoch
 *                           (both of OSDMAP_STRUCT_V; older epochs may be
 *                           of an older version, read as ever)
 *   "P" be32 pool be32 seed one PG stat record per PG
 *   "V" be64 ver be32 chunk pgmap incremental: the PG ids changed in that
 *                           version, in chunks of at most KEYS_PGINC_CHUNK
 *   "L" be64 seq            cluster log entry
 *   "H"                     health mutes: every muted check (absent: none)
 *   "A" NAME                auth entity: its key and caps (NAME its bytes,
 *                           "client.admin", at most MON_AUTH_NAME_MAX)
 *   "Q"                     with several monitors: the index and term of the
 *                           last replicated entry applied, written by the
 *                           same commit (mon_quorum.h)
 *   "S" be32 osd            the capacity (statfs.h) the OSD's beacons last
 *                           gave, as committed (mon_record.h): one record
 *                           per OSD that sent one, put by the commit that
 *                           carries a change of it, deleted by the commit
 *                           that removes the OSD; loaded at start, so that
 *                           a restarted monitor or a new leader knows every
 *                           OSD's capacity at once (mon_capacity.h)
 *
 * Store format note: the "A" family came with authentication.  A store
 * made before it holds no entities; mapmond then starts with none, and
 * with [auth] required nobody can connect until one is made (mapmond(8),
 * AUTHENTICATION, says how).  Older mapmon ignores the family at start
 * (`mapmon-store verify' of an older mapmon calls it unknown).  So with
 * the "S" family: a store made before it holds no capacity, which the
 * OSDs' next beacons give; an older mapmon ignores the family at start.
 *
 * No value read at start or written per commit is over KEYS_VALUE_MAX: there
 * is no whole-pgmap value; the biggest are the full osdmap (about 60 bytes an
 * OSD) and a pgmap incremental chunk (8 bytes a PG).
 */
#ifndef KEYS_H
#define KEYS_H

#include <stdint.h>
#include <string.h>

#include "common/enc.h"

#define KEYS_VALUE_MAX (1024 * 1024)
#define KEYS_PGINC_CHUNK 65536

#define KEYS_COMMIT 'C'
#define KEYS_MONMAP 'M'
#define KEYS_OSDMAP 'O'
#define KEYS_OSDMAP_INC 'I'
#define KEYS_PG 'P'
#define KEYS_PGINC 'V'
#define KEYS_LOG 'L'
#define KEYS_MUTES 'H'
#define KEYS_AUTH 'A'
#define KEYS_QUORUM 'Q'
#define KEYS_STATFS 'S'

#define KEYS_EPOCH_LEN 5
#define KEYS_STATFS_LEN 5
#define KEYS_PG_LEN 9
#define KEYS_PGINC_LEN 13
#define KEYS_LOG_LEN 9

static inline void
keys_epoch(uint8_t *k, char kind, uint32_t epoch)
{
	k[0] = (uint8_t)kind;
	enc_put_be32(k + 1, epoch);
}

/* The key of OSD id's capacity record ("S" be32 id). */
static inline void
keys_statfs(uint8_t *k, int32_t id)
{
	k[0] = KEYS_STATFS;
	enc_put_be32(k + 1, (uint32_t)id);
}

static inline void
keys_pg(uint8_t *k, uint32_t pool, uint32_t seed)
{
	k[0] = KEYS_PG;
	enc_put_be32(k + 1, pool);
	enc_put_be32(k + 5, seed);
}

static inline void
keys_pginc(uint8_t *k, uint64_t version, uint32_t chunk)
{
	k[0] = KEYS_PGINC;
	enc_put_be64(k + 1, version);
	enc_put_be32(k + 9, chunk);
}

static inline void
keys_log(uint8_t *k, uint64_t seq)
{
	k[0] = KEYS_LOG;
	enc_put_be64(k + 1, seq);
}

/* The key of the auth entity name (at most 1 + 64 bytes); its length. */
static inline size_t
keys_auth(uint8_t *k, const char *name)
{
	size_t n = strlen(name);

	k[0] = KEYS_AUTH;
	memcpy(k + 1, name, n);
	return 1 + n;
}
#define KEYS_AUTH_MAX (1 + 64)

#endif
