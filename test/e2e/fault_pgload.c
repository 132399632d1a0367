/*
 * fault_pgload.c: PG reports from one OSD, one after the other, until one
 * is refused; for the store fault tests (test/fault_*.sh).
 *
 *	fault_pgload ADDR POOL PG_NUM OSD FIRST COUNT
 *
 * Sends up to COUNT `pg report`s from osd.OSD, each holding every PG of
 * pool POOL (ids POOL.0 .. POOL.PG_NUM-1) with reported_seq FIRST, FIRST+1,
 * ... and byte counts that change with it, so that every report changes
 * every PG.  Each waits for its answer.  Prints one line per report:
 *
 *	ok SEQ ACCEPTED
 *	fail SEQ RC STATUS
 *	health STORE_ERROR | health no STORE_ERROR   (asked right after)
 *
 * and stops at the first refusal (or a report not every PG of which was
 * accepted).  The reports carry the osdmap epoch `osd dump` gives at start.  Exit status: 0 when all COUNT were
 * accepted, the errno of the refusal (28 for ENOSPC, 5 for EIO), or 1 for a
 * usage or connection error.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "map/pg.h"
#include "net/client.h"

static long long
fault_pgload_num(const char *s, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "fault_pgload: bad number '%s'\n", s);
		exit(1);
	}
	return v;
}

static json_t *
fault_pgload_report(uint32_t pool, uint32_t pg_num, int32_t osd,
    uint32_t epoch, uint64_t seq)
{
	struct pg_stat st;
	struct pg_id id;
	json_t *pgs;
	uint32_t i;

	pgs = json_array();
	for (i = 0; i < pg_num; i++) {
		id.pool = pool;
		id.seed = i;
		pg_stat_init(&st, id);
		st.state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
		st.reported_epoch = epoch;
		st.reported_seq = seq;
		st.version_epoch = epoch;
		st.version_v = seq;
		st.up_len = st.acting_len = 1;
		st.up[0] = st.acting[0] = osd;
		st.up_primary = st.acting_primary = osd;
		st.num_objects = (int64_t)(seq * 3 + i);
		st.num_bytes = (int64_t)(seq * 4096 + i);
		st.log_size = (int64_t)seq;
		json_array_append_new(pgs, pg_stat_to_json(&st));
	}
	return json_pack("{s:s, s:i, s:o}", "prefix", "pg report", "osd",
	    (int)osd, "pgs", pgs);
}

/*
 * Right after a refusal, whether health has STORE_ERROR: asked at once,
 * before the monitor's first retry (100 ms later), which may well succeed
 * (a small commit fits where a report did not).
 */
static void
fault_pgload_health(const char *addr)
{
	json_t *cmd, *data = NULL;
	char *status = NULL;
	int rc;

	cmd = json_pack("{s:s}", "prefix", "health");
	rc = mclient_call(addr, 10000, cmd, &data, &status);
	json_decref(cmd);
	if (rc != 0)
		printf("health failed %d %s\n", rc, status ? status : "");
	else
		printf("health %s\n", json_object_get(json_object_get(data,
		    "checks"), "STORE_ERROR") != NULL ? "STORE_ERROR" :
		    "no STORE_ERROR");
	free(status);
	json_decref(data);
}

int
main(int argc, char **argv)
{
	json_t *cmd, *data = NULL;
	json_int_t accepted;
	char *status = NULL;
	uint64_t seq, first, count;
	uint32_t pool, pg_num;
	int32_t osd;
	uint32_t epoch;
	int rc;

	if (argc != 7) {
		fprintf(stderr, "usage: fault_pgload ADDR POOL PG_NUM OSD "
		    "FIRST COUNT\n");
		return 1;
	}
	pool = (uint32_t)fault_pgload_num(argv[2], 0, UINT32_MAX);
	pg_num = (uint32_t)fault_pgload_num(argv[3], 1, 1048576);
	osd = (int32_t)fault_pgload_num(argv[4], 0, 65535);
	first = (uint64_t)fault_pgload_num(argv[5], 1, LLONG_MAX / 2);
	count = (uint64_t)fault_pgload_num(argv[6], 1, LLONG_MAX / 2);

	/*
	 * Reports carry the current epoch: one older than what a PG holds
	 * would be dropped as old.
	 */
	cmd = json_pack("{s:s}", "prefix", "osd dump");
	rc = mclient_call(argv[1], 10000, cmd, &data, &status);
	json_decref(cmd);
	if (rc != 0 || !json_is_integer(json_object_get(data, "epoch"))) {
		fprintf(stderr, "fault_pgload: osd dump: %d %s\n", rc,
		    status != NULL ? status : "");
		return 1;
	}
	epoch = (uint32_t)json_integer_value(json_object_get(data, "epoch"));
	free(status);
	json_decref(data);

	for (seq = first; seq < first + count; seq++) {
		cmd = fault_pgload_report(pool, pg_num, osd, epoch, seq);
		data = NULL;
		status = NULL;
		rc = mclient_call(argv[1], 10000, cmd, &data, &status);
		json_decref(cmd);
		if (rc != 0) {
			printf("fail %llu %d %s\n", (unsigned long long)seq, rc,
			    status != NULL ? status : "");
			free(status);
			json_decref(data);
			fault_pgload_health(argv[1]);
			fflush(stdout);
			/* A connection failure is not the store's answer. */
			if (rc == -ECONNREFUSED || rc == -ECONNRESET ||
			    rc == -ETIMEDOUT || rc == -EPROTO || rc > 0 ||
			    rc < -255)
				return 1;
			return -rc;
		}
		accepted = json_integer_value(json_object_get(data,
		    "accepted"));
		printf("ok %llu %lld\n", (unsigned long long)seq,
		    (long long)accepted);
		free(status);
		json_decref(data);
		if (accepted != (json_int_t)pg_num) {
			fprintf(stderr, "fault_pgload: only %lld of %u PG stats "
			    "accepted\n", (long long)accepted, pg_num);
			return 1;
		}
	}
	fflush(stdout);
	return 0;
}
