/*
 * pgreport.h: a PG report's two wire forms, parsed into PG stats.
 *
 * JSON:   {"prefix":"pg report","osd":N,"pgs":[PGSTAT, ...]} (the "pgs"
 *         array is what pgreport_from_json() reads);
 * binary: a BINARY_REQUEST frame (type 5) whose payload is
 *
 *	u16 opcode = 1 (FRAME_BINARY_PG_REPORT)
 *	u32 osd id
 *	u32 count
 *	count records of pg_stat_encode() (map/pg.h), back to back
 *
 *         all big-endian (mapmon-protocol(7)).
 *
 * Neither trusts its input: every length is checked before it is used,
 * and a count is never believed beyond what the bytes can hold.
 */
#ifndef PGREPORT_H
#define PGREPORT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct pg_stat;

/*
 * The binary payload p[0..len), opcode included.  Returns 0 with *osd,
 * *pgs (malloc'd, the caller frees it) and *n set, or -1 with *cause
 * (caller frees) naming what was wrong: a short header, a count the bytes
 * cannot hold, the index of a bad record, bytes after the last record.
 */
int pgreport_decode(const uint8_t *p, size_t len, int32_t *osd,
    struct pg_stat **pgs, size_t *n, char **cause);

/*
 * The JSON "pgs" array into stats: 0 with *pgs (malloc'd, the caller
 * frees) and *n, or -1 with *cause naming the index of the first bad entry
 * ("pg report: pgs[3]: ...").
 */
int pgreport_from_json(json_t *pgs_json, struct pg_stat **pgs, size_t *n,
    char **cause);

#endif /* PGREPORT_H */
